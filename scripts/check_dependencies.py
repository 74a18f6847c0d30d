#!/usr/bin/env python3
"""Checks that scripts/setup installs everything a configured build found on this machine.

A package installed once by hand hides a missing install step: the build passes here and
fails on a fresh machine. So every package the build used is looked up, not trusted:
- the CMake cache's package folders (*_DIR with a package config file) and the found
  libraries and programs (*_LIBRARY, *_EXECUTABLE) that the build rules use;
- the shared libraries the built programs and libraries load (ldd);
and the Debian package owning each file (dpkg -S) must be in setup's list or in the Depends
closure of that list (apt-cache depends --recurse, no Recommends or Suggests).

usage: check_dependencies.py BUILD_DIR [BUILD_DIR ...]
Exit status: 0 all covered, 1 a package is missing from setup (named), 2 cannot check.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def setup_packages():
    out = run([os.path.join(ROOT, "scripts", "setup"), "--list"])
    if out.returncode != 0:
        sys.exit("check_dependencies: 'scripts/setup --list' failed: " + out.stderr.strip())
    return out.stdout.split()


def closure(packages):
    """Every package apt installs with these: Depends and Pre-Depends, recursively; for a
    virtual package, its providers."""
    out = run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
               "--no-breaks", "--no-replaces", "--no-enhances"] + packages)
    names = set()
    for line in out.stdout.splitlines():
        m = re.match(r"^\s+\|?(?:Depends|PreDepends):\s+<?([^>\s]+)>?", line)
        if m:
            names.add(m.group(1))
        elif line.strip():
            names.add(line.strip().strip("<>"))  # a package, or a virtual package's provider
    return {n.split(":")[0] for n in names}


def cache_files(build):
    """Files the configure step found and the build uses: package config files, and the
    libraries and programs its build rules name (FindOpenGL finds EGL and GLU it never links)."""
    files = []
    cache = os.path.join(build, "CMakeCache.txt")
    if not os.path.isfile(cache):
        sys.exit(f"check_dependencies: {cache} not found; configure the build first")
    ninja = os.path.join(build, "build.ninja")
    rules = open(ninja, encoding="utf-8", errors="replace").read() if os.path.isfile(ninja) else None
    for line in open(cache, encoding="utf-8", errors="replace"):
        m = re.match(r"^([A-Za-z0-9_]+):(PATH|FILEPATH)=(.*)$", line.rstrip("\n"))
        if not m or "NOTFOUND" in m.group(3) or not m.group(3).startswith("/"):
            continue
        key, value = m.group(1), m.group(3)
        if key.endswith("_DIR") and os.path.isdir(value):
            files += [f for f in glob.glob(value + "/*") if re.search(r"(Config|-config)\.cmake$", f)]
        elif (key.endswith("_LIBRARY") or key.endswith("_EXECUTABLE")) and os.path.isfile(value) \
                and (rules is None or value in rules):
            files.append(value)
    return files


def loaded_libraries(build):
    """Shared libraries the built programs and libraries load, outside the project's own."""
    libs = set()
    for pattern in ("bin/*", "lib/*.so"):
        for f in glob.glob(os.path.join(build, pattern)):
            if not os.path.isfile(f) or not os.access(f, os.X_OK) and not f.endswith(".so"):
                continue
            out = run(["ldd", f])
            for line in out.stdout.splitlines():
                m = re.search(r"=>\s+(/\S+)", line)
                if m:
                    libs.add(m.group(1))
    deps = os.path.join(ROOT, ".deps")
    return [p for p in libs if not os.path.realpath(p).startswith((os.path.realpath(build), deps))]


def owner(path):
    """The Debian package holding path (trying the merged-/usr spellings), or None."""
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        if p.startswith("/usr/lib/") or p.startswith("/usr/bin/"):
            candidates.append(p[4:])
        elif p.startswith("/lib/") or p.startswith("/bin/"):
            candidates.append("/usr" + p)
    for p in candidates:
        out = run(["dpkg", "-S", p])
        if out.returncode == 0:
            first = out.stdout.splitlines()[0]
            return first.split(": ")[0].split(",")[0].strip().split(":")[0]
    return None


def main():
    builds = sys.argv[1:]
    if not builds:
        sys.exit(__doc__)
    listed = setup_packages()
    covered = set(listed) | closure(listed)
    if len(covered) <= len(listed):
        print("check_dependencies: apt-cache knows no dependencies; run 'apt-get update' first", file=sys.stderr)
        return 2
    needed = {}
    for build in builds:
        for f in cache_files(build) + loaded_libraries(build):
            pkg = owner(f)
            if pkg is None:
                needed.setdefault(None, []).append(f)
            else:
                needed.setdefault(pkg, []).append(f)
    unowned = needed.pop(None, [])
    missing = sorted(p for p in needed if p not in covered)
    for p in missing:
        print(f"check_dependencies: the build uses package '{p}' ({needed[p][0]}), which scripts/setup "
              f"does not install (nor anything it installs depends on it): add '{p}' to APT_PACKAGES in scripts/setup",
              file=sys.stderr)
    for f in sorted(set(unowned)):
        print(f"check_dependencies: note: {f} belongs to no Debian package (installed by hand?)", file=sys.stderr)
    print(f"check_dependencies: {len(needed)} packages used by the build, {len(missing)} not installed by setup")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
