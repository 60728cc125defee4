"""The snapshot as one unit: generations, the atomic switch, checksums, ``verify``, and consistent reads.

A data folder (``data/`` by default) holds:

- ``snapshot/``: the current generation, committed in git: ``observations/<source>.csv``, ``tables/``,
  ``series.csv``, ``quality_flags.csv`` and ``manifest.json``, whose ``snapshot_files`` gives the size and
  sha256 of every other file of the generation (and ``curated_files`` those of the hand-edited inputs it was
  built from);
- ``.snapshot-new-<pid>-<token>/``: a generation being written; ``.snapshot-old-...``: the one just replaced.
  Both are removed by the writer, or, if it was killed, by the next writer;
- the curated inputs (``events.csv``, ``reported_figures.csv``, ``user_events.csv``) and the download cache
  ``raw/``, which are not part of a generation.

Why a whole new generation instead of replacing files one by one: a run killed between two file replacements
left observations of one release under the manifest of another, which the page then drew as if they agreed.
A generation is written and checked completely beside the current one, then switched in with one
``renameat2(RENAME_EXCHANGE)`` of the two folders: at every instant ``snapshot/`` is the old generation or the
new one. Where the kernel or file system cannot exchange, two renames are used and a reader (or the next
writer) that finds no ``snapshot/`` uses the old generation left beside it, which is whole.

Readers go through ``resolve`` and ``read_generation``: they read every file through one open directory handle
and check it against the manifest, so a switch in the middle of a read is noticed and the read retried.
"""
from __future__ import annotations

import ctypes
import datetime as dt
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
from pathlib import Path

from .errors import LoaderError, naming
from .errors import excerpt as short

NAME = "snapshot"
MANIFEST = "manifest.json"
NEW_PREFIX = ".snapshot-new-"
OLD_PREFIX = ".snapshot-old-"
# The hand-edited inputs a generation is built from or shown beside; their checksums are recorded so that
# ``verify`` notices one edited (or damaged) after the build.
CURATED = ("events.csv", "reported_figures.csv")
# Files of the flat layout of earlier versions (everything directly in the data folder).
_LEGACY_TOP = ("manifest.json", "series.csv", "quality_flags.csv")
PROJECT_DATA = Path(__file__).resolve().parent.parent / "data"
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class SnapshotError(LoaderError):
    """The snapshot on disk is damaged, or a write would lose data; the message says what and where."""


# ---------------------------------------------------------------- where the current generation is

def resolve(data_dir: Path | str) -> Path:
    """The folder of the current generation of ``data_dir``.

    ``data_dir/snapshot`` normally; the old generation left beside it when a two-rename switch was cut between
    its steps; ``data_dir`` itself when it is a generation (``--data data/snapshot``) or a flat snapshot of an
    earlier version. A folder with no snapshot yet resolves to where the first one will go.
    """
    data_dir = Path(data_dir)
    cur = data_dir / NAME
    if cur.is_dir():
        return cur
    for old in sorted(data_dir.glob(OLD_PREFIX + "*")):
        if (old / MANIFEST).is_file():
            return old
    if (data_dir / MANIFEST).is_file():
        return data_dir
    return cur


def is_snapshot_folder(data_dir: Path) -> bool:
    data_dir = Path(data_dir)
    return (resolve(data_dir) / MANIFEST).is_file()


def check_out_folder(data_dir: Path, project_data: Path | None = None) -> None:
    """Refuse to write a snapshot into a folder holding something else: a mistyped ``--out`` must not wipe it."""
    data_dir = Path(data_dir)
    if data_dir.name == NAME and (data_dir / MANIFEST).is_file():
        raise SnapshotError(f"{data_dir} is a snapshot generation, not a data folder; pass its parent "
                            f"{data_dir.parent} (the snapshot is written to <folder>/{NAME}/)")
    if data_dir.exists() and not data_dir.is_dir():
        raise SnapshotError(f"{data_dir} is not a folder")
    if not data_dir.exists() or is_snapshot_folder(data_dir):
        return
    if project_data is not None and data_dir.resolve() == Path(project_data).resolve():
        return  # the project's own data folder (curated files, raw cache) before its first snapshot
    # the lock, and the parses a rebuild keeps beside its snapshot (``rebuild`` writes them before the snapshot,
    # so a rebuild that failed leaves them without one)
    others = sorted(p.name for p in data_dir.iterdir() if p.name not in (".update.lock", "raw-cache"))
    if others:
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        raise SnapshotError(f"{data_dir} is not empty and holds no snapshot ({shown}); refusing to write into "
                            "it. Choose an empty or new folder, or an existing snapshot folder")


# ---------------------------------------------------------------- the manifest

def manifest_error(path: Path, what: str) -> SnapshotError:
    return SnapshotError(f"{path}: {what}; the snapshot is damaged. See `python -m loaders verify`, restore it "
                         "(git checkout -- data/snapshot) or rebuild it")


def parse_manifest(text: bytes | str, path: Path) -> dict:
    """The manifest, checked for the fields the commands rely on; any problem is one line naming the field."""
    try:
        man = json.loads(text)
    except UnicodeDecodeError as e:
        raise manifest_error(path, f"not UTF-8 text (byte at offset {e.start})") from None
    except json.JSONDecodeError as e:
        raise manifest_error(path, f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if not isinstance(man, dict) or not isinstance(man.get("sources"), dict):
        raise manifest_error(path, "has no 'sources' object")
    for sid, entry in man["sources"].items():
        _check_source_entry(sid, entry, path)
    for key in ("snapshot_files", "curated_files"):
        _check_file_list(key, man.get(key, {}), path)
    return man


def _check_source_entry(sid: str, entry, path: Path) -> None:
    """One source's entry: an object with a row count, its dates, and its files' dates."""
    if not isinstance(entry, dict):
        raise manifest_error(path, f"source {sid!r} is not an object")
    rows = entry.get("rows", 0)
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
        raise manifest_error(path, f"source {sid!r} field 'rows' is {short(rows)}, not a count")
    for fld in ("latest_release", "date_min", "date_max"):
        _check_date(entry.get(fld), path, f"source {sid!r} field {fld!r}")
    for f in entry.get("files") or []:
        if not isinstance(f, dict):
            raise manifest_error(path, f"source {sid!r} has a file entry that is not an object")
        for fld in ("release", "data_date", "date_min", "date_max"):
            _check_date(f.get(fld), path, f"source {sid!r} file {short(f.get('name'))} field {fld!r}")


def _check_file_list(key: str, files, path: Path) -> None:
    """The snapshot's or the curated files' list: a size and sha256 for each, snapshot paths inside it."""
    if not isinstance(files, dict):
        raise manifest_error(path, f"{key!r} is not an object")
    for rel, meta in files.items():
        if (not isinstance(meta, dict) or not isinstance(meta.get("bytes"), int)
                or not re.fullmatch(r"[0-9a-f]{64}", str(meta.get("sha256", "")))):
            raise manifest_error(path, f"{key!r} entry {short(rel)} lacks a size and sha256")
        if key == "snapshot_files" and not _safe_rel(rel):
            raise manifest_error(path, f"'snapshot_files' entry {short(rel)} is not a path inside the snapshot")


def _check_date(value, path: Path, where: str) -> None:
    if value in (None, ""):
        return
    ok = isinstance(value, str) and _DATE_RE.match(value)
    if ok:
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            ok = False
    if not ok:
        raise manifest_error(path, f"{where} is {short(value)}, not a YYYY-MM-DD date")


def _safe_rel(rel: str) -> bool:
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and all(p not in ("", ".", "..") for p in parts) and "\\" not in rel


def read_manifest(data_dir: Path) -> dict:
    """The current generation's manifest (``{"sources": {}}`` when there is no snapshot yet)."""
    p = resolve(data_dir) / MANIFEST
    if not p.is_file():
        return {"sources": {}}
    return parse_manifest(p.read_bytes(), p)


# ---------------------------------------------------------------- reading one generation consistently

def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _listed_or_globbed(dir_fd: int, man: dict) -> list[str]:
    if "snapshot_files" in man:
        return sorted(man["snapshot_files"])
    # A snapshot of an earlier version has no checksums: read what its layout holds.
    out = [n for n in ("series.csv", "quality_flags.csv") if _exists(dir_fd, n)]
    for sub in ("observations", "tables"):
        try:
            sub_fd = os.open(sub, os.O_RDONLY | os.O_DIRECTORY, dir_fd=dir_fd)
        except FileNotFoundError:
            continue
        try:
            names = os.listdir(sub_fd)
        finally:
            os.close(sub_fd)
        out += [f"{sub}/{n}" for n in sorted(names) if n.endswith(".csv")]
    return out


def _exists(dir_fd: int, rel: str) -> bool:
    try:
        os.stat(rel, dir_fd=dir_fd)
        return True
    except FileNotFoundError:
        return False


def _read_at(dir_fd: int, rel: str) -> bytes:
    fd = os.open(rel, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read()
    finally:
        if fd >= 0:
            os.close(fd)


class _Changed(Exception):
    """The generation changed under the reader (a switch happened): read again."""


def read_generation(data_dir: Path | str, *, tries: int = 5) -> tuple[Path, dict, dict[str, bytes]]:
    """(generation folder, manifest, {relative path: bytes}) of one generation, every file checked.

    All files are read through one directory handle, so a switch during the read cannot mix two generations;
    if the old one is deleted under the reader, or a file does not match the manifest, the read starts again
    (a writer switched in between), and after ``tries`` attempts the snapshot is reported damaged.
    """
    last: Exception | None = None
    for _ in range(tries):
        gen = resolve(data_dir)
        try:
            dir_fd = os.open(gen, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            last = None
            continue
        try:
            try:
                raw = _read_at(dir_fd, MANIFEST)
            except FileNotFoundError:
                if gen.name.startswith(OLD_PREFIX) or not (Path(data_dir) / NAME).exists():
                    return gen, {"sources": {}}, {}
                last = None
                continue
            man = parse_manifest(raw, gen / MANIFEST)
            files, bad = {}, []
            for rel in _listed_or_globbed(dir_fd, man):
                try:
                    data = _read_at(dir_fd, rel)
                except FileNotFoundError:
                    bad.append(f"{rel}: missing")
                    continue
                meta = man.get("snapshot_files", {}).get(rel)
                if meta and (len(data) != meta["bytes"] or sha256(data) != meta["sha256"]):
                    bad.append(f"{rel}: does not match the manifest")
                files[rel] = data
            if not bad:
                return gen, man, files
            last = manifest_error(gen / MANIFEST, "files differ from the manifest: " + "; ".join(bad[:5]))
        finally:
            os.close(dir_fd)
    raise last or SnapshotError(f"no readable snapshot in {data_dir}")


# ---------------------------------------------------------------- verify

def verify(data_dir: Path | str) -> list[str]:
    """Every problem of the snapshot in ``data_dir``, one line each ("" list when it is whole)."""
    data_dir = Path(data_dir)
    gen = resolve(data_dir)
    mpath = gen / MANIFEST
    if not mpath.is_file():
        return [f"{mpath}: missing (no snapshot in {data_dir})"]
    try:
        man = parse_manifest(mpath.read_bytes(), mpath)
    except SnapshotError as e:
        return [str(e)]
    if "snapshot_files" not in man:
        return [f"{mpath}: lists no checksums (written by an earlier version); run rebuild to record them"]
    listed = man["snapshot_files"]
    problems = _listed_file_problems(gen, listed) + _stray_files(gen, listed) + _unlisted_sources(man, mpath, listed)
    if gen == data_dir / NAME or gen.name.startswith(OLD_PREFIX):
        problems += _curated_problems(data_dir, man)
    return problems


def _listed_file_problems(gen: Path, listed: dict) -> list[str]:
    """Each file the manifest lists: present, a regular file, of the listed size and sha256."""
    problems = []
    for rel, meta in sorted(listed.items()):
        p = gen / rel
        if p.is_symlink() or not p.is_file():
            problems.append(f"{p}: missing" if not p.exists() else f"{p}: not a regular file")
            continue
        data = p.read_bytes()
        if len(data) != meta["bytes"]:
            problems.append(f"{p}: {len(data):,} bytes, the manifest says {meta['bytes']:,}")
        elif sha256(data) != meta["sha256"]:
            problems.append(f"{p}: sha256 {sha256(data)[:12]}…, the manifest says {meta['sha256'][:12]}…")
    return problems


def _stray_files(gen: Path, listed: dict) -> list[str]:
    """Files in the snapshot that the manifest does not list (its update lock aside)."""
    stray = []
    for p in sorted(gen.rglob("*")):
        rel = p.relative_to(gen).as_posix()
        if p.is_file() and rel != MANIFEST and rel not in listed and p.name != ".update.lock":
            stray.append(f"{p}: not listed in the manifest (a stray or half-written file)")
    return stray


def _unlisted_sources(man: dict, mpath: Path, listed: dict) -> list[str]:
    """Each source's observations file and tables, as the file list names them."""
    problems = []
    for sid, entry in sorted(man["sources"].items()):
        if f"observations/{sid}.csv" not in listed:
            problems.append(f"{mpath}: source {sid} has no observations file listed")
        for t in (entry.get("tables") or {}).values():
            if isinstance(t, dict) and t.get("file") and t["file"] not in listed:
                problems.append(f"{mpath}: source {sid} table {t['file']} is not listed")
    return problems


def _curated_problems(data_dir: Path, man: dict) -> list[str]:
    """The curated files the snapshot was built with: still there, and unchanged since."""
    problems = []
    for name, meta in sorted(man.get("curated_files", {}).items()):
        # The copy in this data folder; for a snapshot written elsewhere (``--out``), the project's own,
        # which is what the build read.
        p = data_dir / name if (data_dir / name).exists() else PROJECT_DATA / name
        if not p.is_file():
            problems.append(f"{p}: missing (the snapshot was built with it)")
            continue
        data = p.read_bytes()
        if len(data) != meta["bytes"] or sha256(data) != meta["sha256"]:
            # The command that works with no raw folder: the curated files are the only ones rebuilt.
            problems.append(f"{p}: changed since the snapshot was built (edited by hand?); run `make "
                            "rebuild-curated` (python -m loaders rebuild --curated-only --out data) to take it in")
    return problems


# ---------------------------------------------------------------- writing a generation

def alive(pid: str) -> bool:
    """Whether process ``pid`` (digits, as written in a staging folder's name) still runs: its leftovers are
    then its own, not a killed run's."""
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cleanup(data_dir: Path) -> list[str]:
    """Remove what killed writers left: unfinished and replaced generations, ``.part`` files, a flat layout
    already superseded by ``snapshot/``. If a two-rename switch was cut between its steps, put the old
    generation back first. Call only while holding the data folder's lock. Returns what was removed."""
    data_dir = Path(data_dir)
    removed = []
    cur = data_dir / NAME
    if not cur.exists():
        olds = [o for o in sorted(data_dir.glob(OLD_PREFIX + "*")) if (o / MANIFEST).is_file()]
        if olds:
            os.rename(olds[0], cur)
            _fsync_dir(data_dir)
    for p in sorted(data_dir.glob(NEW_PREFIX + "*")) + sorted(data_dir.glob(OLD_PREFIX + "*")):
        shutil.rmtree(p, ignore_errors=True)
        removed.append(str(p))
    for d in (data_dir, cur, cur / "observations", cur / "tables", data_dir / "observations", data_dir / "tables"):
        if d.is_dir():
            for p in d.glob("*.part"):
                p.unlink(missing_ok=True)
                removed.append(str(p))
    if cur.is_dir() and (cur / MANIFEST).is_file():
        removed += remove_flat_layout(data_dir)
    return removed


def remove_flat_layout(data_dir: Path) -> list[str]:
    """The generated files of the flat layout of earlier versions, once ``snapshot/`` has replaced them."""
    removed: list[str] = []
    if not (data_dir / MANIFEST).is_file():  # removed last, so present until the flat layout is all gone
        return removed
    for sub in ("observations", "tables"):
        d = data_dir / sub
        if d.is_dir():
            for p in sorted(d.glob("*.csv")):
                p.unlink()
                removed.append(str(p))
            with _suppress_oserror():
                d.rmdir()
    for name in reversed(_LEGACY_TOP):  # the manifest last: until then the folder still reads as a snapshot
        p = data_dir / name
        if p.is_file():
            p.unlink()
            removed.append(str(p))
    return removed


class _suppress_oserror:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and issubclass(exc[0], OSError)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, f"could not switch {b} to the new generation: {os.strerror(err)}")


class Generation:
    """A new generation, written beside the current one and switched in by ``commit``.

    Files are added with ``add``; ``commit(manifest)`` records every file's size and sha256 (and the curated
    inputs'), writes the manifest, reads the whole generation back and checks it, and only then switches.
    Leaving the ``with`` block without committing removes the unfinished generation.
    """

    def __init__(self, data_dir: Path, curated_dir: Path | None = None):
        self.data_dir = Path(data_dir)
        self.curated_dir = Path(curated_dir) if curated_dir else None
        self.path = self.data_dir / f"{NEW_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        self.files: dict[str, dict] = {}

    def __enter__(self):
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path.mkdir()
        return self

    def __exit__(self, *exc):
        if self.path.exists():
            shutil.rmtree(self.path, ignore_errors=True)
        return False

    def add(self, rel: str, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not _safe_rel(rel) or rel == MANIFEST:
            raise ValueError(f"not a snapshot file path: {rel!r}")
        p = self.path / rel
        with naming(p):  # a full disk or an I/O error names the file it struck
            p.parent.mkdir(parents=True, exist_ok=True)
            with open(p, "xb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(p, 0o644)
        self.files[rel] = {"bytes": len(data), "sha256": sha256(data)}

    def commit(self, manifest: dict) -> None:
        manifest = dict(manifest)
        manifest["snapshot_files"] = dict(sorted(self.files.items()))
        if self.curated_dir is not None:
            manifest["curated_files"] = {
                name: {"bytes": len(b), "sha256": sha256(b)}
                for name in CURATED if (self.curated_dir / name).is_file()
                for b in [(self.curated_dir / name).read_bytes()]}
        text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
        with naming(self.path / MANIFEST), open(self.path / MANIFEST, "xb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(self.path / MANIFEST, 0o644)
        os.chmod(self.path, 0o755)  # mkdir honours the umask; a generation is meant to be readable
        for d in sorted({(self.path / r).parent for r in self.files} | {self.path}, reverse=True):
            _fsync_dir(d)
        # Checked completely before the switch: what is read back is what the manifest says.
        problems = [p for p in verify(self.path) if "changed since" not in p]
        if problems:
            raise SnapshotError("the new generation did not check out, nothing was switched: " + "; ".join(problems[:3]))
        self._switch()

    def _switch(self) -> None:
        cur = self.data_dir / NAME
        old = self.data_dir / f"{OLD_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        if cur.exists():
            if exchange(self.path, cur):
                os.rename(self.path, old)  # the new name now holds the old generation
            else:
                os.rename(cur, old)  # cut here, readers and the next writer use ``old``, which is whole
                os.rename(self.path, cur)
        else:
            os.rename(self.path, cur)
        _fsync_dir(self.data_dir)
        shutil.rmtree(old, ignore_errors=True)
        remove_flat_layout(self.data_dir)
