"""Write deploy/nginx.conf with its fields filled in: the listen address, the replicas and nginx's runtime folder.

    python deploy/nginx_conf.py --listen 127.0.0.1:8080 --replica 127.0.0.1:8601 --replica 127.0.0.1:8602 \\
        --runtime /tmp/dash-nginx [--site /srv/site] [--out /tmp/dash-nginx/nginx.conf]

With ``--site DIR`` (a folder built by ``python -m charts site --out DIR``) nginx also serves that static site at
``/site/``, from disk, with caching headers and gzip; without it the site's locations are left out.

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


_UNSAFE_PATH = re.compile(r"[\s;{}'\"$\\#]")
_SITE_BLOCK = re.compile(r"^[ \t]*# @SITE_BEGIN@\n.*?^[ \t]*# @SITE_END@\n\n?", re.S | re.M)


def _safe_folder(path: Path, what: str) -> Path:
    path = Path(path).resolve()
    if _UNSAFE_PATH.search(str(path)):
        raise ValueError(f"the {what}'s path must have no spaces, quotes, braces, '$', '#', '\\' or ';': {path}")
    return path


def render(listen: str, replicas: list[str], runtime: Path, template: Path = TEMPLATE,
           site: Path | None = None) -> str:
    """The configuration text. A replica that refuses connections (or answers 502/503) is marked failed for 10 s
    and its readers are hashed onto the others. ``site``: a folder built by ``python -m charts site``, served at
    /site/; None leaves the site's locations out (the app's part of the configuration is the same either way)."""
    if not replicas:
        raise ValueError("give at least one replica (host:port)")
    for a in [listen, *replicas]:
        if not _ADDRESS.match(a):
            raise ValueError(f"not a host:port address: {a!r}")
    runtime = _safe_folder(runtime, "runtime folder")
    text = template.read_text("utf-8")
    if site is None:
        text = _SITE_BLOCK.sub("", text)
    else:
        site = _safe_folder(site, "site folder")
        if str(site) == "/":
            raise ValueError("the site folder cannot be the file system's root")
        text = text.replace("# @SITE_BEGIN@\n", "").replace("# @SITE_END@\n", "").replace("@SITE@", str(site))
    lines = "\n".join(f"        server {r} max_fails=1 fail_timeout=10s;" for r in replicas)
    out = text.replace("@LISTEN@", listen).replace("@REPLICAS@", lines).replace("@RUNTIME@", str(runtime))
    left = re.findall(r"@[A-Z_]+@", out)
    if left:
        raise ValueError(f"fields left unfilled in {template}: {sorted(set(left))}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen", required=True, help="host:port nginx listens on, e.g. 127.0.0.1:8080")
    ap.add_argument("--replica", action="append", required=True, help="host:port of a Streamlit replica (repeat)")
    ap.add_argument("--runtime", required=True, type=Path, help="folder for nginx's pid, logs and temporary files")
    ap.add_argument("--site", type=Path, help="a folder built by `python -m charts site`, served at /site/")
    ap.add_argument("--out", type=Path, help="write here instead of to standard output")
    args = ap.parse_args(argv)
    try:
        text = render(args.listen, args.replica, args.runtime, site=args.site)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.site and not (args.site / "index.html").is_file():
        print(f"warning: {args.site} has no index.html yet (build it with `python -m charts site --out "
              f"{args.site}`); nginx answers 404 until then", file=sys.stderr)
    args.runtime.mkdir(parents=True, exist_ok=True)
    if args.out:
        args.out.write_text(text, "utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
