import time, datetime as dt, cProfile, pstats, sys
from charts import data as cd
from charts.compose import render
from charts.view import View
from loaders.events import load_events
from loaders.reported_figures import load_reported
snap=cd.load_snapshot(); ev=load_events(cd.DATA/"events.csv"); rep=load_reported(cd.DATA/"reported_figures.csv")
render(snap, View(), events=ev, reported=rep)
t=time.perf_counter()
for i in range(20): r=render(snap, View(preset="custom", start=dt.date(2025,1,1+i), end=dt.date(2026,6,1)), events=ev, reported=rep)
print("render avg ms", (time.perf_counter()-t)/20*1000)
if len(sys.argv)>1:
    pr=cProfile.Profile(); pr.enable()
    for i in range(10): render(snap, View(preset="custom", start=dt.date(2025,1,1+i), end=dt.date(2026,6,1)), events=ev, reported=rep)
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats("charts", 18)
