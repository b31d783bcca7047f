#!/usr/bin/env python3
"""The release checks scripts/test.sh runs as its dist layer (no network).

1. META.json against the PGXN Meta Spec 1.0.0 (https://pgxn.org/meta/spec.txt):
   the required keys and their types, semantic versions, version ranges,
   license names, no unknown keys but x_/X_ ones; and what this project asks
   on top: resources, generated_by, tags, release_status, a runtime
   prerequisite of PostgreSQL 15 or later.
2. One version everywhere: provides.idgen.version and the release version are
   idgen.control's default_version with ".0", and the Makefile's EXTVERSION
   is default_version.
3. `make dist` writes idgen-<version>.zip with every file under
   idgen-<version>/, holding the control file, the SQL sources in sql/
   (sql/idgen--0.1.sql, sql/install/, sql/updates/, sql/udfs/), the
   sources in src/, the Makefile, README.md and META.json, and no build
   products.  In a git checkout that is `git archive` of HEAD, and a copy
   of the tree without .git (what an unpacked release or scripts/test.sh's
   copy is) goes through the fallback, whose files must be git's view of
   the tree: tracked, plus untracked but not ignored.

Exits 1 and lists every problem if any check fails.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
EXTENSION = "idgen"

problems = []


def problem(msg):
    problems.append(msg)


# ---------------------------------------------------------------------------
# value types of the spec
# ---------------------------------------------------------------------------

def is_str(v, min_len=1):
    return isinstance(v, str) and len(v) >= min_len


def has_control_chars(s):
    return any(ord(c) < 32 or ord(c) == 127 for c in s)


def is_term(v):
    """at least 2 characters; no slash, backslash, whitespace or control character"""
    return is_str(v, 2) and not re.search(r"[/\\\s]", v) and not has_control_chars(v)


def is_tag(v):
    return is_str(v, 2) and len(v) < 256 and not re.search(r"[/\\]", v) and not has_control_chars(v)


def is_semver(v):
    """Semantic Versioning 2.0.0: no leading zeros, dot-separated
    pre-release identifiers (numeric ones without leading zeros), build
    metadata after +"""
    if not isinstance(v, str):
        return False
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?", v)
    if not m:
        return False
    if any(len(p) > 1 and p[0] == "0" for p in m.group(1, 2, 3)):
        return False
    if m.group(4) is not None:
        for ident in m.group(4).split("."):
            if ident == "" or (ident.isdigit() and len(ident) > 1 and ident[0] == "0"):
                return False
    if m.group(5) is not None and "" in m.group(5).split("."):
        return False
    return True


def semver_key(v):
    return tuple(int(p) for p in re.match(r"(\d+)\.(\d+)\.(\d+)", v).groups())


def version_range(v):
    """A version range as [(operator, version)], operator None for a bare
    version (at least that one); None when malformed.  0 (or "0") is any
    version."""
    if v == 0 or v == "0":
        return []
    if not isinstance(v, str):
        return None
    clauses = []
    for part in v.split(","):
        m = re.fullmatch(r"\s*(==|!=|<=|>=|<|>)?\s*(\S+)\s*", part)
        if not m or not is_semver(m.group(2)):
            return None
        clauses.append((m.group(1), m.group(2)))
    return clauses


def is_uri(v):
    return is_str(v) and re.match(r"[A-Za-z][A-Za-z0-9+.-]*:\S+$", v) is not None


def is_email(v):
    return is_str(v) and re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", v) is not None


def is_dist_path(v):
    """a relative path with unix separators that stays inside the distribution"""
    return (is_str(v, 2) and not v.startswith("/") and "\\" not in v
            and ".." not in v.split("/"))


def is_custom(key):
    return re.match(r"[xX]_.", key) is not None


def unknown_keys(obj, known, where):
    for key in obj:
        if key not in known and not is_custom(key):
            problem(f"{where}: unknown key {key!r} (the spec allows others only as x_ or X_ keys)")


LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd",
    "freebsd", "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1",
    "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5",
    "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
    "restricted", "unrestricted", "unknown",
}

PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONSHIPS = {"requires", "recommends", "suggests", "conflicts"}

TOP_KEYS = {
    "name", "version", "abstract", "maintainer", "license", "provides",
    "meta-spec", "description", "generated_by", "tags", "no_index",
    "prereqs", "release_status", "resources",
}
SPEC_REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
PROJECT_REQUIRED = ["prereqs", "resources", "generated_by", "tags", "release_status"]


# ---------------------------------------------------------------------------
# 1. META.json
# ---------------------------------------------------------------------------

def check_meta(meta):
    if not isinstance(meta, dict):
        problem("META.json: not a JSON object")
        return
    for key in SPEC_REQUIRED:
        if key not in meta:
            problem(f"META.json: {key!r} is missing (required by the spec)")
    for key in PROJECT_REQUIRED:
        if key not in meta:
            problem(f"META.json: {key!r} is missing (this project releases with it)")
    unknown_keys(meta, TOP_KEYS, "META.json")

    if "name" in meta and not is_term(meta["name"]):
        problem(f"META.json: name {meta['name']!r} is not a term (2+ characters, no /, \\, space or control character)")
    if "version" in meta and not is_semver(meta["version"]):
        problem(f"META.json: version {meta['version']!r} is not a semantic version")
    for key in ("abstract", "description", "generated_by"):
        if key in meta and not is_str(meta[key]):
            problem(f"META.json: {key} must be a non-empty string")

    m = meta.get("maintainer")
    if m is not None and not (is_str(m) or (isinstance(m, list) and m and all(is_str(x) for x in m))):
        problem("META.json: maintainer must be a non-empty string or a non-empty list of them")

    lic = meta.get("license")
    if lic is not None:
        if isinstance(lic, str):
            ok = lic in LICENSES
        elif isinstance(lic, list):
            ok = bool(lic) and all(x in LICENSES for x in lic)
        elif isinstance(lic, dict):
            ok = bool(lic) and all(is_uri(u) for u in lic.values())
        else:
            ok = False
        if not ok:
            problem(f"META.json: license {lic!r} is none of the spec's license names (or a list of them, or name -> URI)")

    check_provides(meta.get("provides"))
    check_meta_spec(meta.get("meta-spec"))
    check_prereqs(meta.get("prereqs"))
    check_resources(meta.get("resources"))

    tags = meta.get("tags")
    if tags is not None and not (isinstance(tags, list) and tags and all(is_tag(t) for t in tags)):
        problem("META.json: tags must be a non-empty list of strings of 2 to 255 characters without /, \\ or control characters")

    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        problem(f"META.json: release_status {meta['release_status']!r} is not stable, testing or unstable")

    ni = meta.get("no_index")
    if ni is not None:
        if not isinstance(ni, dict):
            problem("META.json: no_index must be an object")
        else:
            unknown_keys(ni, {"file", "directory"}, "META.json no_index")
            for key in ("file", "directory"):
                v = ni.get(key)
                if v is not None and not (is_str(v) or (isinstance(v, list) and all(is_str(x) for x in v))):
                    problem(f"META.json: no_index.{key} must be a string or a list of strings")


def check_provides(provides):
    if provides is None:
        return
    if not isinstance(provides, dict) or not provides:
        problem("META.json: provides must be a non-empty object")
        return
    if EXTENSION not in provides:
        problem(f"META.json: provides has no {EXTENSION!r}")
    for name, ext in provides.items():
        where = f"META.json provides.{name}"
        if not is_term(name):
            problem(f"{where}: the extension name is not a term")
        if not isinstance(ext, dict):
            problem(f"{where}: must be an object")
            continue
        unknown_keys(ext, {"file", "version", "abstract", "docfile", "docpath"}, where)
        # the spec requires file and version; this project an abstract too
        for key in ("file", "version", "abstract"):
            if key not in ext:
                problem(f"{where}: {key!r} is missing")
        if "version" in ext and not is_semver(ext["version"]):
            problem(f"{where}: version {ext['version']!r} is not a semantic version")
        if "abstract" in ext and not is_str(ext["abstract"]):
            problem(f"{where}: abstract must be a non-empty string")
        for key in ("file", "docfile"):
            if key in ext:
                if not is_dist_path(ext[key]):
                    problem(f"{where}: {key} {ext[key]!r} is not a relative unix path inside the distribution")
                elif not os.path.isfile(os.path.join(ROOT, ext[key])):
                    problem(f"{where}: {key} {ext[key]} does not exist")


def check_meta_spec(ms):
    if ms is None:
        return
    if not isinstance(ms, dict):
        problem("META.json: meta-spec must be an object")
        return
    unknown_keys(ms, {"version", "url"}, "META.json meta-spec")
    if not (isinstance(ms.get("version"), str) and re.fullmatch(r"1\.0\.\d+", ms["version"])):
        problem(f"META.json: meta-spec.version {ms.get('version')!r} is not 1.0.x")
    if "url" in ms and ms["url"] not in ("https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"):
        problem(f"META.json: meta-spec.url {ms['url']!r} is not the spec's address")


def check_prereqs(prereqs):
    if prereqs is None:
        return
    if not isinstance(prereqs, dict) or not prereqs:
        problem("META.json: prereqs must be a non-empty object")
        return
    unknown_keys(prereqs, PHASES, "META.json prereqs")
    for phase, rels in prereqs.items():
        if is_custom(phase):
            continue
        if not isinstance(rels, dict) or not rels:
            problem(f"META.json: prereqs.{phase} must be a non-empty object")
            continue
        unknown_keys(rels, RELATIONSHIPS, f"META.json prereqs.{phase}")
        for rel, deps in rels.items():
            if is_custom(rel):
                continue
            if not isinstance(deps, dict):
                problem(f"META.json: prereqs.{phase}.{rel} must map names to version ranges")
                continue
            for dep, rng in deps.items():
                if not is_term(dep):
                    problem(f"META.json: prereqs.{phase}.{rel}: {dep!r} is not a term")
                if version_range(rng) is None:
                    problem(f"META.json: prereqs.{phase}.{rel}.{dep}: {rng!r} is not a version range")

    # the tested target is PostgreSQL 15: the requirement may not promise less
    pg = prereqs.get("runtime", {}).get("requires", {}).get("PostgreSQL") if isinstance(prereqs.get("runtime"), dict) else None
    clauses = version_range(pg) if pg is not None else None
    lows = [v for op, v in (clauses or []) if op in (None, ">=", ">", "==")]
    if pg is None:
        problem("META.json: prereqs.runtime.requires.PostgreSQL is missing")
    elif clauses is not None and not lows or max(semver_key(v) for v in lows)[0] < 15:
        problem(f"META.json: prereqs.runtime.requires.PostgreSQL {pg!r} does not require PostgreSQL 15 or later")


def check_resources(res):
    if res is None:
        return
    if not isinstance(res, dict) or not res:
        problem("META.json: resources must be a non-empty object")
        return
    unknown_keys(res, {"homepage", "bugtracker", "repository"}, "META.json resources")
    if "homepage" in res and not is_uri(res["homepage"]):
        problem("META.json: resources.homepage must be a URI")
    bt = res.get("bugtracker")
    if bt is not None:
        if not isinstance(bt, dict) or not ("web" in bt or "mailto" in bt):
            problem("META.json: resources.bugtracker needs web or mailto")
        else:
            unknown_keys(bt, {"web", "mailto"}, "META.json resources.bugtracker")
            if "web" in bt and not is_uri(bt["web"]):
                problem("META.json: resources.bugtracker.web must be a URI")
            if "mailto" in bt and not is_email(bt["mailto"]):
                problem("META.json: resources.bugtracker.mailto must be an email address")
    repo = res.get("repository")
    if repo is not None:
        if not isinstance(repo, dict) or not ("web" in repo or ("url" in repo and "type" in repo)):
            problem("META.json: resources.repository needs web, or url and type")
        else:
            unknown_keys(repo, {"url", "web", "type"}, "META.json resources.repository")
            for key in ("url", "web"):
                if key in repo and not is_uri(repo[key]):
                    problem(f"META.json: resources.repository.{key} must be a URI")
            if "type" in repo and not (is_str(repo["type"]) and repo["type"] == repo["type"].lower()):
                problem("META.json: resources.repository.type must be a lower-case name (git, hg, ...)")


# ---------------------------------------------------------------------------
# 2. versions
# ---------------------------------------------------------------------------

def read_setting(path, pattern):
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(pattern, line)
            if m:
                return m.group(1)
    return None


def check_versions(meta):
    control = os.path.join(ROOT, EXTENSION + ".control")
    default = read_setting(control, r"\s*default_version\s*=\s*'([^']*)'")
    if default is None:
        problem(f"{EXTENSION}.control: no default_version")
        return None
    want = default + ".0"
    ext = meta.get("provides", {}).get(EXTENSION, {}) if isinstance(meta.get("provides"), dict) else {}
    if isinstance(ext, dict) and ext.get("version") != want:
        problem(f"META.json: provides.{EXTENSION}.version is {ext.get('version')!r}, "
                f"not default_version '{default}' with '.0' ({want})")
    if meta.get("version") != want:
        problem(f"META.json: version is {meta.get('version')!r}, not default_version '{default}' with '.0' ({want})")
    extversion = read_setting(os.path.join(ROOT, "Makefile"), r"EXTVERSION\s*=\s*(\S+)")
    if extversion != default:
        problem(f"Makefile: EXTVERSION is {extversion!r}, not {EXTENSION}.control's default_version '{default}'")
    return default


# ---------------------------------------------------------------------------
# 3. make dist
# ---------------------------------------------------------------------------

BUILD_SUFFIXES = (".o", ".so", ".bc", ".zip")
BUILD_DIRS = {"results", "tmp_check", "output_iso", "tmp_regress", "corpus-run", ".git"}


def make_dist(tree, outdir, version):
    """Run `make dist` in tree, writing to outdir; the archive's path, or None."""
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    r = subprocess.run(["make", "-s", "-C", tree, "dist", f"DISTDIR={outdir}"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        problem(f"make dist in {tree} failed (exit {r.returncode}):\n{r.stdout}")
        return None
    print("   " + r.stdout.strip().replace("\n", "\n   "))
    made = sorted(os.listdir(outdir))
    want = f"{EXTENSION}-{version}.zip"
    if made != [want]:
        problem(f"make dist in {tree} wrote {made}, not [{want!r}]")
        return None
    return os.path.join(outdir, want)


def archive_files(path, version, label):
    """The archive's files, relative to its top directory; None if unusable."""
    prefix = f"{EXTENSION}-{version}/"
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                problem(f"{label}: {bad} is corrupt")
            names = z.namelist()
    except zipfile.BadZipFile as e:
        problem(f"{label}: not a zip archive ({e})")
        return None
    outside = [n for n in names if not n.startswith(prefix) or ".." in n.split("/")]
    if outside:
        problem(f"{label}: entries outside {prefix}: {outside[:5]}")
    return {n[len(prefix):] for n in names if n.startswith(prefix) and not n.endswith("/")}


def check_contents(files, label, meta):
    required = [f"{EXTENSION}.control", "Makefile", "README.md", "META.json"]
    # and the files META.json names
    for ext in meta["provides"].values():
        required += [ext[k] for k in ("file", "docfile") if k in ext and ext[k] not in required]
    # the SQL sources: the oldest install script, the install script's
    # pieces, the upgrade scripts' templates and the functions they include
    required += sorted(os.path.relpath(p, ROOT)
                       for pattern in (f"sql/{EXTENSION}--0.1.sql", "sql/install/*.sql",
                                       f"sql/updates/{EXTENSION}--*--*.sql", "sql/udfs/*/*.sql")
                       for p in glob.glob(os.path.join(ROOT, pattern)))
    required += sorted(os.path.relpath(p, ROOT)
                       for p in glob.glob(os.path.join(ROOT, "src", "*.[ch]")))
    if not any(r.startswith("sql/install/") for r in required):
        problem(f"no sql/install/*.sql in {ROOT}")
    if not any(r.startswith("sql/updates/") for r in required):
        problem(f"no sql/updates/{EXTENSION}--*--*.sql in {ROOT}")
    if not any(r.startswith("src/") for r in required):
        problem(f"no src/*.c in {ROOT}")
    missing = [r for r in required if r not in files]
    if missing:
        problem(f"{label}: missing {missing} (git archive takes HEAD: is everything committed?)")
    products = sorted(f for f in files
                      if f.endswith(BUILD_SUFFIXES)
                      or BUILD_DIRS.intersection(f.split("/")[:-1])
                      or f.startswith("bench/out/"))
    if products:
        problem(f"{label}: build or test products in the archive: {products[:10]}")
    return not missing and not products


def git_checkout():
    """True when ROOT is the top of a git checkout (as scripts/dist.sh decides)."""
    try:
        r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--show-toplevel"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except FileNotFoundError:
        return False
    return r.returncode == 0 and os.path.realpath(r.stdout.strip()) == ROOT


def git_view():
    """What the fallback should archive: tracked files still present, and
    untracked files .gitignore does not cover."""
    def ls(*args):
        r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", *args],
                           stdout=subprocess.PIPE, check=True)
        return {p for p in r.stdout.decode().split("\0") if p}
    return (ls("--cached") | ls("--others", "--exclude-per-directory=.gitignore")) - ls("--deleted")


def check_dist(meta):
    version = meta["version"]
    with tempfile.TemporaryDirectory(prefix="idgen-dist-check.") as tmp:
        in_git = git_checkout()
        how = "git archive of HEAD" if in_git else "no .git: the tree as it stands"
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        zip_path = make_dist(ROOT, out, version)
        if zip_path is None:
            return
        files = archive_files(zip_path, version, f"make dist ({how})")
        if files is None:
            return
        if check_contents(files, f"make dist ({how})", meta):
            print(f"make dist ({how}): {os.path.basename(zip_path)}, {len(files)} files: ok")
        if not in_git:
            return

        # the fallback, in a copy without .git, must archive git's view
        copy = os.path.join(tmp, "tree")
        shutil.copytree(ROOT, copy, symlinks=True,
                        ignore=lambda d, names: [".git"] if os.path.realpath(d) == ROOT else [])
        out2 = os.path.join(tmp, "out2")
        os.mkdir(out2)
        zip2 = make_dist(copy, out2, version)
        if zip2 is None:
            return
        files2 = archive_files(zip2, version, "make dist (copy without .git)")
        if files2 is None:
            return
        ok = check_contents(files2, "make dist (copy without .git)", meta)
        want = git_view()
        extra = sorted(files2 - want)
        lacking = sorted(want - files2)
        if extra:
            problem(f"make dist (copy without .git): files git ignores: {extra[:10]} "
                    "(scripts/dist.sh's list of build products lags .gitignore)")
        if lacking:
            problem(f"make dist (copy without .git): files git sees but the archive lacks: {lacking[:10]}")
        if ok and not extra and not lacking:
            print(f"make dist (copy without .git): {len(files2)} files, the same as git's view of the tree: ok")


def main():
    try:
        with open(os.path.join(ROOT, "META.json"), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        print(f"META.json: cannot read it: {e}")
        return 1
    check_meta(meta)
    default = check_versions(meta)
    if not problems:
        print(f"META.json: valid for PGXN Meta Spec {meta['meta-spec']['version']}, "
              f"version {meta['version']} = {EXTENSION}.control's {default} with .0: ok")
    # the archive checks need a usable version and provides
    if not problems:
        check_dist(meta)
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
