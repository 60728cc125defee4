"""Write deploy/nginx.conf with its fields filled in: the listen address, the replicas and nginx's runtime folder.

    python deploy/nginx_conf.py --listen 127.0.0.1:8080 --replica 127.0.0.1:8601 --replica 127.0.0.1:8602 \\
        --runtime /tmp/dash-nginx [--out /tmp/dash-nginx/nginx.conf]

The runtime folder (created when missing) holds nginx's pid file, its logs and its temporary folders; run nginx
with it as its prefix: ``nginx -p /tmp/dash-nginx -c /tmp/dash-nginx/nginx.conf -g 'daemon off;'``.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent / "nginx.conf"
_ADDRESS = re.compile(r"^[A-Za-z0-9.\-\[\]:]+:\d{1,5}$")


def render(listen: str, replicas: list[str], runtime: Path, template: Path = TEMPLATE) -> str:
    """The configuration text. A replica that refuses connections (or answers 502/503) is marked failed for 10 s
    and its readers are hashed onto the others."""
    if not replicas:
        raise ValueError("give at least one replica (host:port)")
    for a in [listen, *replicas]:
        if not _ADDRESS.match(a):
            raise ValueError(f"not a host:port address: {a!r}")
    runtime = Path(runtime).resolve()
    if re.search(r"[\s;{}'\"]", str(runtime)):
        raise ValueError(f"the runtime folder's path must have no spaces, quotes, braces or ';': {runtime}")
    lines = "\n".join(f"        server {r} max_fails=1 fail_timeout=10s;" for r in replicas)
    text = template.read_text("utf-8")
    out = text.replace("@LISTEN@", listen).replace("@REPLICAS@", lines).replace("@RUNTIME@", str(runtime))
    left = re.findall(r"@[A-Z]+@", out)
    if left:
        raise ValueError(f"fields left unfilled in {template}: {sorted(set(left))}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen", required=True, help="host:port nginx listens on, e.g. 127.0.0.1:8080")
    ap.add_argument("--replica", action="append", required=True, help="host:port of a Streamlit replica (repeat)")
    ap.add_argument("--runtime", required=True, type=Path, help="folder for nginx's pid, logs and temporary files")
    ap.add_argument("--out", type=Path, help="write here instead of to standard output")
    args = ap.parse_args(argv)
    try:
        text = render(args.listen, args.replica, args.runtime)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.runtime.mkdir(parents=True, exist_ok=True)
    if args.out:
        args.out.write_text(text, "utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
