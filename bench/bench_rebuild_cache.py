"""Rebuild of the ICE workbooks with the parse cache (loaders/parse_cache.py) against the plain full parse. One run,
side by side.

    .venv/bin/python bench/bench_rebuild_cache.py [--runs 3]

Every ICE workbook the rebuild reads from ../shared/data (original_xlsx*, release_history: about 110) is copied
into a scratch raw folder, and ``loaders.pipeline.rebuild(raw, out, ["ice_detention_stats"])`` -- the rebuild's
own path: origins, parse, validation, the integrity checks, the snapshot written -- runs four ways:
- plain: no cache, every file parsed (the rebuild before issue 39);
- cold: an empty cache: every file parsed and its parse written;
- warm: the cache holding every file's parse and part and the source's result for these files: nothing parsed,
  validated or checked;
- incremental: the cache holding every file's parse and part (``loaders.parts``) but the newest file's (one new
  release), and no result for this set of files: one file parsed, validated and checked on its own, then the
  checks across releases, the order and the text of all rows made again (``parts.assemble``).
Each way runs ``--runs`` rounds, alternating; best of each, CPU time of this process (``time.process_time``,
steadier than the wall clock on a shared machine) and wall time. Every way's snapshot is compared with the
plain one's, byte for byte. No target: recorded in BENCHMARKS.md.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED, header  # noqa: E402


def snapshot_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "snapshot").rglob("*")) if p.is_file()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from loaders import pipeline, registry
    source = registry.get("ice_detention_stats")
    files = pipeline.find_raw_files(source, SHARED)
    if not files:
        print(f"skipped: no ICE workbooks under {SHARED}")
        return 0
    header("Rebuild: ICE detention-statistics workbooks, with and without the parse cache")
    work = Path(tempfile.mkdtemp(prefix="bench-rebuild-"))
    try:
        raw = work / "raw"
        for p in files:  # the layout of ../shared/data, so that the origins table names every file
            dest = raw / p.relative_to(SHARED)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, dest)
        newest = max(files, key=lambda p: p.name)  # FY26_detentionStats_04092026.xlsx, the latest release held
        print(f"   {len(files)} workbooks, {sum(p.stat().st_size for p in files) / 2**20:.1f} MB; the incremental "
              f"way's new file: {newest.name}")
        cache_full = work / "cache-full"
        pipeline.rebuild(raw, work / "prime", ["ice_detention_stats"], cache_dir=cache_full)  # warms the cache
        # the same cache without the new file's entry: parse it into a cache of its own and take its key out
        new_only = work / "cache-new"
        solo = work / "raw-solo"
        dest = solo / newest.relative_to(SHARED)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(newest, dest)
        pipeline.rebuild(solo, work / "prime-solo", ["ice_detention_stats"], cache_dir=new_only)
        # its parse and its part (``loaders.parts``), relative to the source's folder of the cache
        new_entries = [p.relative_to(new_only / source.id) for p in (new_only / source.id).glob("*.zip")]
        new_entries += [p.relative_to(new_only / source.id) for p in (new_only / source.id / "parts").glob("*.zip")]

        def run(way: str, out: Path):
            cache = None
            if way != "plain":
                cache = work / f"cache-{way}"
                shutil.rmtree(cache, ignore_errors=True)
                if way in ("warm", "incremental"):
                    shutil.copytree(cache_full, cache)
                if way == "incremental":  # the other files' parses and parts, and no result for this set of files
                    for n in new_entries:
                        (cache / source.id / n).unlink()
                    shutil.rmtree(cache / source.id / "results")
            shutil.rmtree(out, ignore_errors=True)
            t0, c0 = time.perf_counter(), time.process_time()
            pipeline.rebuild(raw, out, ["ice_detention_stats"], cache_dir=cache)
            return time.perf_counter() - t0, time.process_time() - c0

        ways = ("plain", "cold", "warm", "incremental")
        wall: dict[str, list[float]] = {w: [] for w in ways}
        cpu: dict[str, list[float]] = {w: [] for w in ways}
        same = {}
        for _ in range(args.runs):
            for w in ways:
                t, c = run(w, work / f"out-{w}")
                wall[w].append(t)
                cpu[w].append(c)
        want = snapshot_bytes(work / "out-plain")
        for w in ways:
            same[w] = snapshot_bytes(work / f"out-{w}") == want
        plain_cpu = min(cpu["plain"])
        print()
        print(f"   {'way':12} {'CPU best':>9} {'x plain':>8} {'wall best':>10}   runs (CPU s)     snapshot")
        for w in ways:
            print(f"   {w:12} {min(cpu[w]):8.2f}s {min(cpu[w]) / plain_cpu:7.2f}x {min(wall[w]):9.2f}s   "
                  f"{' '.join(f'{c:.2f}' for c in cpu[w]):16} {'same bytes' if same[w] else 'DIFFERS'}")
        cache_mb = sum(p.stat().st_size for p in (cache_full / source.id).rglob("*.zip")) / 2**20
        entries = len(list((cache_full / source.id).rglob("*.zip")))
        print(f"   cache: {entries} entries (parses, parts, results), {cache_mb:.1f} MB")
        print(f"load average after the run: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
        return 0 if all(same.values()) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
