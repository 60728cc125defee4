"""Where each series' national figure is: the ``national_total`` column of the catalogue (issue 39).

Most series carry their national figure as the member with an empty ``key``. The others are broken down with no
such row, and summing their members is a trap: some members are already totals (ICE's "Total" rows), averages
do not add up, categories overlap (DHS's arrests by criminality), and some breakdowns cover a few states or one
area only. Each of those declares here, as data, where its national figure is:

- ``member:<key>``: the member with that key is the national figure (ICE prints a "Total" row). The keys are
  those of the stored rows: a fiscal-year-to-date series holds no fiscal year in its key (``loaders.tidy``).
- ``series:<id>``: the national figure is another series (its members add up to it in the files checked, or,
  for averages and overlapping categories, do not: never sum them).
- ``each member``: every member is a national figure of its own (separate tables, separate reports).
- ``none``: the source has no national figure for what the series counts (a few states, one area, a list
  without a national row).

A series not listed has its national figure as the member with key "". ``tests/test_national_total.py`` checks
every rule against the snapshot's rows.
"""
from __future__ import annotations

NATIONAL_TOTAL: dict[str, str] = {
    # CBP: the Southwest breakdowns add up to swb_total in each file; the state file's national figure is the
    # AOR file's (a different file, which the bundled snapshot does not hold).
    "cbp_encounters.nationwide_by_state": "series:cbp_encounters.nationwide_total",
    "cbp_encounters.swb_by_citizenship": "series:cbp_encounters.swb_total",
    "cbp_encounters.swb_by_component_and_type": "series:cbp_encounters.swb_total",
    "cbp_encounters.swb_by_demographic": "series:cbp_encounters.swb_total",
    "cbp_encounters.swb_by_title": "series:cbp_encounters.swb_total",
    # DDP's published aggregates: subsets of states or areas have no national figure beside them.
    "ddp_arrests_aggregates.daily_by_state_lower_bound": "none",
    "ddp_arrests_aggregates.daily_minnesota_by_type_lower_bound": "none",
    "ddp_arrests_aggregates.paper_weekly_raw_digitised": "each member",
    "ddp_arrests_aggregates.seattle_aor_monthly_by_criminality": "none",
    "ddp_arrests_aggregates.seattle_aor_monthly_by_state": "none",
    "ddp_arrests_aggregates.site_weekly_by_conviction_digitised": "series:ddp_arrests_aggregates.site_weekly_digitised",
    "ddp_arrests_aggregates.total_by_aor_2025_2026": "none",
    "ddp_arrests_aggregates.total_by_state_2025_2026": "none",
    # DDP's daily counts: the national series are counted apart (a few records have no sex; facility months
    # are averages of daily counts).
    "ddp_facility_daily.detained_24h_by_sex": "series:ddp_facility_daily.detained_24h",
    "ddp_facility_daily.facility_midnight_monthly": "series:ddp_facility_daily.detained_midnight",
    "deaths_in_custody.deaths_fy_by_facility": "series:deaths_in_custody.deaths_fy",
    "deaths_in_custody.deaths_fy_by_facility_type": "series:deaths_in_custody.deaths_fy",
    # The registry's copy of ICE's facility sheet, and ICE's own facility list: ICE's national fiscal-year ADP
    # (the lists leave out hold rooms and hospitals, so their sums fall short of it).
    "facility_registry.ice_sheet_adp_fytd": "series:ice_detention_stats.adp_total_fytd",
    "ice_detention_stats.facility_adp_fytd": "series:ice_detention_stats.adp_total_fytd",
    # ICE's tables with a printed Total row.
    "ice_detention_stats.adp_by_facility_type": "member:Total",
    "ice_detention_stats.atd_alip_by_aor": "member:Total",
    "ice_detention_stats.atd_alip_by_status": "member:Total",
    "ice_detention_stats.atd_by_aor": "member:Total",
    "ice_detention_stats.atd_by_status": "member:Total",
    "ice_detention_stats.atd_by_technology": "member:Total",
    "ice_detention_stats.atd_daily_cost_by_technology": "member:Total",
    "ice_detention_stats.book_outs_by_reason": "member:Total | Total",
    "ice_detention_stats.detained_by_disposition": "member:Total | Total",
    "ice_detention_stats.detained_with_fear_decision": "member:Total",
    "ice_detention_stats.iclos_days": "member:Total",
    "ice_detention_stats.iclos_detainees": "member:Total | Total",
    "ice_detention_stats.length_of_stay_by_facility_type": "member:Total",
    "ice_detention_stats.segregation_consecutive_days_by_reason": "member:Total",
    "ice_detention_stats.segregation_cumulative_days_by_reason": "member:Total",
    "ice_detention_stats.segregation_placements_by_facility": "member:Total",
    "ice_detention_stats.segregation_placements_by_reason": "member:Total",
    # ICE's fiscal-year-to-date tables: each fiscal year's (each date's) Total row. The others of them
    # (removals, ADP by arresting agency) have a row with key "" per fiscal year.
    "ice_detention_stats.adp_by_facility_type_fytd": "member:Total",
    "ice_detention_stats.atd_court_appearances": "member:Total",
    "ice_detention_stats.atd_court_appearances_final": "member:Total",
    "ice_detention_stats.book_ins_by_facility_type_fytd": "member:Total | Total",
    "ice_detention_stats.book_outs_by_facility_type_fytd": "member:Total",
    "ice_detention_stats.book_outs_by_reason_fytd": "member:Total | Total",
    "ice_detention_stats.fear_decision_to_release_days": "member:Total",
    "ice_detention_stats.length_of_stay_by_facility_type_fytd": "member:Total",
    # ICE's criminality splits add up to the agency series in every workbook; lengths of stay are averages.
    "ice_detention_stats.adp_cbp_by_criminality": "series:ice_detention_stats.adp_cbp",
    "ice_detention_stats.adp_ice_by_criminality": "series:ice_detention_stats.adp_ice",
    "ice_detention_stats.adp_total_by_criminality": "series:ice_detention_stats.adp_total",
    "ice_detention_stats.alos_cbp_by_criminality": "series:ice_detention_stats.alos_cbp",
    "ice_detention_stats.alos_ice_by_criminality": "series:ice_detention_stats.alos_ice",
    "ice_detention_stats.alos_total_by_criminality": "series:ice_detention_stats.alos_total",
    "ice_detention_stats.detained_cbp_by_criminality": "series:ice_detention_stats.detained_cbp",
    "ice_detention_stats.detained_ice_by_criminality": "series:ice_detention_stats.detained_ice",
    "ice_detention_stats.detained_total_by_criminality": "series:ice_detention_stats.detained_total",
    # DHS: rounded to 10, so parts and totals differ by a few; arrests by criminality overlap (felons are
    # among all convicted criminals).
    "ohss_khsm.usbp_encounters_by_region": "series:ohss_khsm.usbp_encounters",
    "ohss_monthly_tables.cbp_encounters_by_region": "series:ohss_monthly_tables.cbp_encounters_total",
    "ohss_monthly_tables.cbp_encounters_by_type": "series:ohss_monthly_tables.cbp_encounters_total",
    "ohss_monthly_tables.dhs_removals_by_arresting_agency": "series:ohss_monthly_tables.dhs_removals_total",
    "ohss_monthly_tables.dhs_removals_by_type": "series:ohss_monthly_tables.dhs_removals_total",
    "ohss_monthly_tables.ero_arrests_by_criminality": "series:ohss_monthly_tables.ero_arrests",
    "ohss_monthly_tables.ice_removals_and_returns_by_arresting_agency":
        "series:ohss_monthly_tables.ice_removals_and_returns_total",
    "ohss_monthly_tables.ice_removals_and_returns_by_criminality":
        "series:ohss_monthly_tables.ice_removals_and_returns_total",
    # Reported figures: each member is one report's figure, never summed.
    "reported_figures.all_book_ins_per_day": "each member",
    "reported_figures.detained_population": "each member",
    "reported_figures.dhs_arrests": "each member",
    "reported_figures.dhs_removals": "each member",
    "reported_figures.ice_arrests": "each member",
    "reported_figures.ice_arrests_per_day": "each member",
    "reported_figures.ice_book_ins": "each member",
    "reported_figures.ice_book_ins_per_day": "each member",
    "reported_figures.removals": "each member",
    "reported_figures.target_per_day": "each member",
    # TRAC: the criminality splits add up to the agency series; its facility table has no national row.
    "trac_detention.atd_by_aor": "series:trac_detention.atd_total",
    "trac_detention.detained_cbp_by_criminality": "series:trac_detention.detained_cbp",
    "trac_detention.detained_ice_by_criminality": "series:trac_detention.detained_ice",
    "trac_detention.detained_total_by_criminality": "series:trac_detention.detained_total",
    "trac_detention.facility_adp": "none",
}
KINDS = ("member:", "series:", "each member", "none")


def national_total(series_id: str) -> str:
    """The series' national-total rule ("" : its member with key "")."""
    return NATIONAL_TOTAL.get(series_id, "")


def total_keys(rule: str, keys: list[str]) -> list[str]:
    """The member of a series that a ``member:`` rule names as its national figure (none for other rules)."""
    if not rule.startswith("member:"):
        return []
    return [rule[len("member:"):]]
