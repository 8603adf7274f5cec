#!/usr/bin/env python3
"""Attacks locsim's inputs with bad traces, configs and command lines (docs/validation.md).

Every case runs the real binary under a time limit and is judged by the project's rule for bad
input: exit 2 with exactly one stderr line "locsim: error: ..." that names the key or FILE:LINE;
never a signal, a hang, a library message (std::..., bad_alloc, json.exception) or a huge
allocation. A case is either

  strict   the input is wrong: only exit 2 is accepted, and the message must name `names`;
  lenient  the input is legal but extreme (a zero or huge size, an odd clock): exit 0, exit 2
           with a one-line message, or exit 3 naming the watchdog / sim.max_cycles (a legal
           configuration may stall the simulated GPU) are accepted.

Families (select with --only, comma separated):
  trace    truncation of two small traces at every line boundary and mid-line, garbage and binary
           bytes, empty files, header and instruction fields out of range, kernelslist.g
           mistakes, corrupt and truncated .xz files
  config   every parameter of every platform with ill-typed values (strict) and zero / huge /
           odd values that must simulate or be refused cleanly (lenient)
  json     truncated and malformed platform/config JSON, wrong JSON types, sweep files
  cli      unknown and valueless options, conflicting options, missing files, directories
           where files are expected, unwritable outputs
  memory   peak RSS of a streaming trace at 1x and 4x its number of CTAs (must stay flat)

Usage: scripts/fuzz_inputs.py [--locsim build-cc/locsim] [--only trace,cli] [-j 2] [-v]
Exit status 0 when every case passed; the failures are listed one per line.
"""
import argparse
import concurrent.futures
import lzma
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT_S = 20
# A bad input must not make locsim allocate much: every case of this script runs tiny
# workloads, which need well under 100 MB. A legal configuration may ask for big caches: their
# tag arrays are allowed up to 8 GiB (docs/cli.md, "Input limits").
RSS_LIMIT_MB = 256
RSS_LIMIT_LEGAL_MB = 9 * 1024
LIBRARY_WORDS = ("std::", "basic_string", "bad_alloc", "json.exception", "vector::", "map::at",
                 "stoul", "stoi", "stod", "terminate called", "Assertion", "what():",
                 "AddressSanitizer", "runtime error:")
SIM_LIMITS = ["--set", "watchdog.limit=100000", "--set", "sim.max_cycles=2000000"]


class Case:
    def __init__(self, family, name, args, strict=True, names=None, cwd=None, setup=None,
                 one_line=True, env=None):
        self.family, self.name, self.args = family, name, args
        self.env = env or {}  # extra environment variables
        self.one_line = one_line  # False: the usage text may follow the error line
        self.strict = strict
        # Any one of these must appear in the error message (a key, a file, FILE:LINE regex).
        self.names = names or []
        self.cwd = cwd
        self.setup = setup  # called just before the run (writes the input files)


def run_binary(binary, args, cwd=None, timeout=TIMEOUT_S, extra_env=None):
    """Runs binary with args; returns (exit code or -signal or 'timeout', stderr, maxrss MB)."""
    env = dict(os.environ)
    env.pop("LOCSIM_SYSTEMC_BANNER", None)
    env.update(extra_env or {})
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([binary] + args, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             cwd=cwd, env=env, start_new_session=True)
        t0 = time.monotonic()
        code, rss = None, 0.0
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                rss = ru.ru_maxrss / 1024.0
                code = (os.WEXITSTATUS(status) if os.WIFEXITED(status)
                        else -os.WTERMSIG(status))
                p.returncode = code
                break
            if time.monotonic() - t0 > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                os.wait4(p.pid, 0)
                p.returncode = -9
                code = "timeout"
                break
            time.sleep(0.003)
        err.seek(0)
        return code, err.read().decode("utf-8", "replace"), rss


def judge(case, code, err, rss):
    """Returns None if the outcome is acceptable, else a short reason."""
    if code == "timeout":
        return "hang (> %d s)" % TIMEOUT_S
    if isinstance(code, int) and code < 0:
        return "killed by signal %d" % -code
    if rss > (RSS_LIMIT_MB if case.strict else RSS_LIMIT_LEGAL_MB):
        return "peak RSS %.0f MB" % rss
    for w in LIBRARY_WORDS:
        if w in err:
            return "library message (%s)" % w
    if code == 3 and not case.strict:
        if "watchdog" in err or "sim.max_cycles" in err:
            return None
        return "exit 3 without naming the watchdog or sim.max_cycles"
    if code == 0:
        return "accepted (exit 0)" if case.strict else None
    if code != 2:
        return "exit %s" % code
    lines = err.count("\n")
    if (lines != 1 and case.one_line) or not err.endswith("\n"):
        return "%d stderr lines" % lines
    if not err.startswith("locsim: error: "):
        return "message does not start with 'locsim: error: '"
    if case.names and not any(re.search(n, err) for n in case.names):
        return "message names none of %s" % case.names
    return None


# ---- traces -------------------------------------------------------------------------------------

def trace_cases(binary, work):
    cases = []
    base = os.path.join(work, "trace_base")
    subprocess.run([binary, "export-trace", "--workload", "vecadd", "--set", "workload.n=512",
                    base], check=True, stdout=subprocess.DEVNULL)
    kernels = {
        "vecadd": open(os.path.join(base, "kernel-1.traceg"), "rb").read(),
        "one_warp": open(os.path.join(ROOT, "tests/data/traces/one_warp/kernel-1.traceg"),
                         "rb").read(),
    }
    memcpy = (b"MemcpyHtoD,0x0000000010000000,65536\nMemcpyHtoD,0x0000000010010000,65536\n"
              b"MemcpyHtoD,0x0000000010020000,65536\n")
    counter = [0]

    def make(name, kernel, listing=None, kernel_name="kernel-1.traceg", strict=True,
             names=None, extra=None, platform="fermi"):
        counter[0] += 1
        d = os.path.join(work, "t%05d" % counter[0])

        def setup():
            os.makedirs(d, exist_ok=True)
            if kernel is not None:
                with open(os.path.join(d, kernel_name), "wb") as f:
                    f.write(kernel)
            with open(os.path.join(d, "kernelslist.g"), "wb") as f:
                f.write(listing if listing is not None else memcpy + kernel_name.encode() + b"\n")
        args = ["run", "--platform", platform, "--quiet", "--trace",
                os.path.join(d, "kernelslist.g")] + SIM_LIMITS + (extra or [])
        if names is None:
            names = [re.escape(kernel_name.replace(".xz", "")) + r"(\.xz)?:\d+: "]
        cases.append(Case("trace", name, args, strict, names, setup=setup))

    # Truncation at every line boundary and in the middle of every line.
    for kname, text in kernels.items():
        full = text.rstrip()
        offsets = set()
        pos = 0
        for line in text.split(b"\n"):
            offsets.update({pos, pos + len(line) // 2, pos + max(len(line) - 1, 0)})
            pos += len(line) + 1
        for off in sorted(offsets):
            cut = text[:off]
            if cut.rstrip() == full:
                continue
            make("%s truncated at byte %d" % (kname, off), cut)

    vec = kernels["vecadd"]
    one = kernels["one_warp"]
    rng = random.Random(20251125)
    make("empty kernel file", b"")
    make("kernel file of blank lines", b"\n\n  \n")
    make("binary junk kernel file", bytes(rng.randrange(256) for _ in range(4096)))
    make("NUL bytes in an instruction line", vec.replace(b"LDG.E 1", b"LDG.E\x00 1", 1))
    make("text junk kernel file", b"hello world\nthis is not a trace\n")
    make("a 4 MB line without newline", b"-kernel name = " + b"x" * (4 << 20))
    make("only the header", vec[:vec.index(b"#BEGIN_TB")])
    for i in range(12):  # garbage bytes at random places
        k = bytearray(vec)
        at = rng.randrange(len(k))
        k[at:at] = bytes(rng.randrange(256) for _ in range(1 + rng.randrange(8)))
        make("garbage bytes inserted at %d (seed %d)" % (at, i), bytes(k), strict=False)

    def sub(name, old, new, kernel=vec, strict=True, extra=None, count=1):
        assert old in kernel, old
        make(name, kernel.replace(old, new, count), strict=strict, extra=extra)

    # Header fields.
    for g in (b"(4194304,1,1)", b"(2048,2048,1)", b"(4294967296,1,1)", b"(4294967295,4294967295,1)", b"(0,1,1)", b"(-1,1,1)",
              b"(1,1)", b"(1,1,1,1)", b"(a,1,1)", b"(67108865,1,1)", b"()", b"1,1,1",
              b"(99999999999999999999,1,1)"):
        sub("grid dim = " + g.decode(), b"-grid dim = (2,1,1)", b"-grid dim = " + g)
    for bd in (b"(1025,1,1)", b"(0,1,1)", b"(1024,1024,1)", b"(4294967296,1,1)",
               b"(65536,65536,1)"):
        sub("block dim = " + bd.decode(), b"-block dim = (256,1,1)", b"-block dim = " + bd)
    sub("accelsim tracer version = 2", b"tracer version = 4", b"tracer version = 2")
    sub("accelsim tracer version = x", b"tracer version = 4", b"tracer version = x")
    sub("missing kernel name", b"-kernel name = vectorAdd\n", b"")
    sub("nregs = 256", b"-nregs = 8", b"-nregs = 256")
    sub("shmem = 4294967296", b"-shmem = 0", b"-shmem = 4294967296")
    sub("enable lineinfo = 2", b"-nregs = 8", b"-nregs = 8\n-enable lineinfo = 2")
    sub("header line without '='", b"-nregs = 8", b"-nregs 8")
    # Resources no SM can hold: must be refused (exit 2), never wait forever for a free SM.
    # vecadd with 1024-thread blocks: warps 8..31 copy warp 7.
    w7 = vec.index(b"warp = 7\n")
    w7_text = vec[w7:vec.index(b"#END_TB", w7)]
    big = vec.replace(b"-block dim = (256,1,1)", b"-block dim = (1024,1,1)").replace(
        b"#END_TB", b"".join(w7_text.replace(b"warp = 7", b"warp = %d" % w)
                             for w in range(8, 32)) + b"#END_TB")
    for name, old, new, key, extra in (
            ("shmem = 4294967295", b"-shmem = 0", b"-shmem = 4294967295", "shared_memory", []),
            ("shmem = 1 MiB", b"-shmem = 0", b"-shmem = 1048576", "shared_memory", []),
            ("nregs = 255 x 1024 threads", b"-nregs = 8", b"-nregs = 255", "registers", []),
            ("block of 1024 threads on an SM of 512", b"", b"", "max_threads",
             ["--set", "sm.max_threads=512"]),
            ("block of 32 warps on an SM of 16", b"", b"", "max_warps",
             ["--set", "sm.max_warps=16"])):
        k = big.replace(old, new, 1) if old else big
        make(name + " (no SM fits the CTA)", k if b"nregs" in old or not old else
             vec.replace(old, new, 1), extra=extra, names=[r"sm\." + key])
    make("1024-thread blocks", big, strict=False)
    # Structure.
    sub("thread block outside the grid", b"thread block = 1,0,0", b"thread block = 2,0,0")
    sub("thread block 2^32", b"thread block = 1,0,0", b"thread block = 4294967296,0,0")
    sub("thread block twice", b"thread block = 1,0,0", b"thread block = 0,0,0")
    sub("thread block x,y", b"thread block = 1,0,0", b"thread block = 1,0")
    sub("warp 8 of 8", b"warp = 7\n", b"warp = 8\n")
    sub("warp -1", b"warp = 7\n", b"warp = -1\n")
    sub("warp twice", b"warp = 7\n", b"warp = 6\n")
    sub("insts = 4294967296", b"insts = 5", b"insts = 4294967296")
    sub("insts = 4294967295", b"insts = 5", b"insts = 4294967295")
    sub("insts = 6 (one line short)", b"insts = 5", b"insts = 6")
    sub("insts = 4 (one line extra)", b"insts = 5", b"insts = 4")
    sub("insts = -1", b"insts = 5", b"insts = -1")
    sub("#END_TB missing", b"#END_TB", b"")
    sub("#BEGIN_TB twice", b"#BEGIN_TB", b"#BEGIN_TB\n#BEGIN_TB")
    # Instruction fields.
    ld = b"0000 ffffffff 1 R8 LDG.E 1 R2 4 1 0x0000000010000000 4"
    for new, why in ((b"0000 1ffffffff 1 R8 LDG.E 1 R2 4 1 0x0000000010000000 4", "mask 33 bits"),
                     (b"0000 ffffffffffffffffff 1 R8 LDG.E 1 R2 4 1 0x10000000 4", "mask 72 bits"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 0 1 0x0000000010000000 4", "mem_width 0"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 3 1 0x0000000010000000 4", "mem_width 3"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 1000 1 0x0000000010000000 4",
                      "mem_width 1000"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 3 0x0000000010000000 4", "mode 3"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 0 0x0000000010000000", "mode 0 one address"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 2 0x0000000010000000 4",
                      "mode 2 one delta"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 1 0x0000000010000000", "stride missing"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 1 0xg 4", "bad address"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 1 0x10000000000000000 4",
                      "address 2^64"),
                     (b"0000 ffffffff 9 R8 LDG.E 1 R2 4 1 0x0000000010000000 4", "9 destinations"),
                     (b"0000 ffffffff 1 R8 LDG.E 99 R2 4 1 0x0000000010000000 4", "99 sources"),
                     (b"0000 ffffffff 1 R8 LDG.E 1 R2 4 1 0x0000000010000000 4 5 6",
                      "two extra tokens"),
                     (b"zzzz ffffffff 1 R8 LDG.E 1 R2 4 1 0x0000000010000000 4", "bad PC"),
                     (b"0000 ffffffff 1 R8", "cut after the destinations"),
                     (b"0000", "PC only")):
        sub(why, ld, new)
    # Legal oddities: an unknown opcode computes; a load without width computes; a width the
    # opcode's suffix overrides.
    sub("unknown opcode", b"FFMA 2 R8 R9 0", b"FOOBAR.X 2 R8 R9 0", strict=False)
    sub("LDG.E.64 with mem_width 3", ld, ld.replace(b"LDG.E 1 R2 4", b"LDG.E.64 1 R2 3"),
        strict=False)
    sub("all lanes off", ld, ld.replace(b"ffffffff", b"00000000"), strict=False)
    sub("stride -9223372036854775808", ld, ld[:-1] + b"-9223372036854775808", strict=False)
    sub("address 0xffffffffffffffff", ld,
        ld.replace(b"0x0000000010000000", b"0xffffffffffffffff"), strict=False)
    sub("warp with insts = 0", b"insts = 5\n0000 ffffffff 1 R8 LDG.E 1 R2 4 1 "
        b"0x0000000010000000 4\n0008 ffffffff 1 R9 LDG.E 1 R2 4 1 0x0000000010010000 4\n0010 "
        b"ffffffff 1 R4 FFMA 2 R8 R9 0\n0018 ffffffff 0 STG.E 2 R2 R4 4 1 0x0000000010020000 "
        b"4\n0020 ffffffff 0 EXIT 0 0", b"insts = 0", strict=False)
    # kernelslist.g.
    names_list = [r"kernelslist\.g:\d+: "]
    make("kernelslist without kernels", vec, listing=memcpy, names=names_list)
    make("empty kernelslist", vec, listing=b"", names=names_list + [r"kernelslist\.g"])
    make("kernelslist names a missing file", vec, listing=memcpy + b"kernel-9.traceg\n",
         names=names_list)
    make("kernelslist names a directory", vec, listing=memcpy + b"../\n",
         names=names_list + [r"\.\./"])
    make("kernelslist names itself", vec, listing=memcpy + b"kernelslist.g\n",
         names=[r"kernelslist\.g:\d+: "])
    make("kernelslist names /dev/zero", vec, listing=b"/dev/zero\n", names=[r"/dev/zero:1: "])
    make("kernelslist names /dev/urandom", vec, listing=b"/dev/urandom\n",
         names=[r"/dev/urandom:\d+: "])
    cases.append(Case("trace", "--trace /dev/zero", ["run", "--platform", "fermi", "--trace",
                                                     "/dev/zero"], True, [r"/dev/zero:1: "]))
    make("kernelslist binary junk", vec, listing=bytes(rng.randrange(256) for _ in range(512)),
         names=names_list)
    for bad in (b"MemcpyHtoD,0x10000000\n", b"MemcpyHtoD,zz,16\n", b"MemcpyHtoD,0x10,-1\n",
                b"MemcpyHtoD,0x10,18446744073709551616\n", b"kernel 1.traceg\n"):
        make("kernelslist line %r" % bad, vec, listing=bad + b"kernel-1.traceg\n",
             names=names_list)
    # Legal but extreme memcpy regions: each must simulate without allocating the region.
    for bad in (b"MemcpyHtoD,0xffffffffffffff00,9999999999999999999\n",
                b"MemcpyHtoD,0x0,9999999999999999999\n", b"MemcpyHtoD,0x10000000,0\n",
                b"MemcpyHtoD,0x10000000,4096\n" * 2000):
        for extra, platform in (([], "fermi"), (["--check-data"], "fermi"), ([], "mcm")):
            make("kernelslist region %r %s %s" % (bad[:60], platform, " ".join(extra)), vec,
                 strict=False, listing=bad + b"kernel-1.traceg\n", extra=extra,
                 names=names_list, platform=platform)
    make("kernelslist region 2^64 bytes", vec, names=names_list,
         listing=b"MemcpyHtoD,0x0,18446744073709551616\nkernel-1.traceg\n")
    # The functional replay takes the same traces.
    for name, old, new in (("shmem = 1 MiB", b"-shmem = 0", b"-shmem = 1048576"),
                           ("insts = 6", b"insts = 5", b"insts = 6"),
                           ("grid dim = (0,1,1)", b"-grid dim = (2,1,1)", b"-grid dim = (0,1,1)")):
        counter[0] += 1
        d = os.path.join(work, "t%05d" % counter[0])

        def setup(d=d, text=vec.replace(old, new, 1)):
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "kernel-1.traceg"), "wb").write(text)
            open(os.path.join(d, "kernelslist.g"), "wb").write(memcpy + b"kernel-1.traceg\n")
        cases.append(Case("trace", "replay " + name,
                          ["replay", "--platform", "fermi", "--trace",
                           os.path.join(d, "kernelslist.g")], True,
                          [r"kernel-1\.traceg:\d+: ", r"sm\.shared_memory"], setup=setup))
    # .xz kernels.
    packed = lzma.compress(vec, format=lzma.FORMAT_XZ)
    xz_names = [r"kernel-1\.traceg\.xz(:\d+)?: "]
    make("xz of the vecadd trace", packed, kernel_name="kernel-1.traceg.xz", strict=False,
         names=xz_names)
    for cut in (0, 6, 12, len(packed) // 2, len(packed) - 13, len(packed) - 1):
        make("xz truncated at byte %d" % cut, packed[:cut], kernel_name="kernel-1.traceg.xz",
             names=xz_names)
    for i in range(6):
        k = bytearray(packed)
        at = 12 + rng.randrange(len(k) - 12)
        k[at] ^= 1 << rng.randrange(8)
        make("xz bit flip at byte %d" % at, bytes(k), kernel_name="kernel-1.traceg.xz",
             names=xz_names)
    make("xz of garbage text", lzma.compress(b"garbage\n" * 100), kernel_name="kernel-1.traceg.xz",
         names=xz_names)
    make("plain text named .xz", vec, kernel_name="kernel-1.traceg.xz", names=xz_names)
    make("xz of a truncated trace", lzma.compress(vec[:len(vec) // 2]),
         kernel_name="kernel-1.traceg.xz", names=xz_names)
    return cases


# ---- configuration ------------------------------------------------------------------------------

BAD_VALUES = {
    "uint": ["abc", "", " ", "-1", "1e400", "1.5", "0x", "12abc", "18446744073709551616",
             "0x10000000000000000"],
    "int": ["abc", "", "1e400", "1.5", "9223372036854775808", "-9223372036854775809", "--1"],
    "double": ["abc", "", "1e400", "-1e400", "nan", "inf", "1,5"],
    "bool": ["maybe", "", "2", "-1"],
    "enum": ["nosuch", "", "1"],
    "bytes": ["abc", "", "-1", "1e400", "1.5", "16XB", "18446744073709551616",
              "17179869184GiB", "0.1KiB"],
    "frequency": ["abc", "", "0", "-1GHz", "1e400", "0Hz", "1e12GHz", "nan", "inf", "999Hz",
                  "101GHz"],
    "time": ["abc", "", "-1ns", "1e400ns", "18446744073709551616ps", "1.5ps", "nan"],
    "string": [],
}
ODD_VALUES = {
    "uint": ["0", "1", "3", "7", "1000", "65535", "4294967295", "4294967296", "1000000000",
             "18446744073709551615"],
    "int": ["-1", "0", "9223372036854775807", "-9223372036854775808"],
    "double": ["0", "-1", "1e308", "-1e308", "1e-308", "0.5"],
    "bool": ["true", "false"],
    "bytes": ["0", "1", "3", "96", "1KiB", "1GiB", "16GiB", "4294967296", "18446744073709551615"],
    "frequency": ["1kHz", "100GHz", "1.000001GHz"],
    "time": ["0ps", "1ps", "1ms", "18446744073709551615ps"],
    "string": ["", "x"],
    "policy-string": ["abc", "", "0", "-1", "3", "4294967296", "18446744073709551616", "auto",
                      "0x0", "1x1x1x1", "65536x65536"],
}


def param_table(binary, platform):
    out = subprocess.run([binary, "params", "--platform", platform, "--markdown"], check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\| `([^`]+)` \| (\w+) \| `([^`]*)` \|", line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3)))
    return rows


def enum_choices(binary, platform, key):
    """The choices an enum key lists in its error message."""
    _, err, _ = run_binary(binary, ["params", "--platform", platform, "--set", key + "=\x01"])
    m = re.search(r"expected one of:? ([^)]*)\)", err)
    if not m:
        return []
    return [c.strip() for c in m.group(1).replace(" or ", ", ").split(",") if c.strip()]


# Keys that only act in some configuration: (key regex, platform, settings that switch it on).
CONTEXTS = [
    (r"^dispatcher\.([a-z-]+)\.", "fermi", lambda m: ["dispatcher.policy=" + m.group(1)]),
    (r"^icc\.", "fermi", lambda m: ["icc.enabled=true"]),
    (r"^mdb\.", "fermi", lambda m: ["l1d.bypass=mdb-local"]),
    (r"^ldesc\.", "fermi", lambda m: ["ldesc.mode=all"]),
    (r"^shared_l1\.", "mesh", lambda m: ["l1d.organization=shared"]),
    (r"^dyneb\.", "fermi", lambda m: ["l1d.organization=dyneb"]),
    (r"^noc\.mesh_", "mesh", lambda m: []),
    (r"^(mcm|numa)\.", "mcm", lambda m: []),
    (r"^cluster\.", "clustered", lambda m: []),
]
# Keys of the core hierarchy are attacked on these platforms too (sectored L1, other fabrics).
CORE_KEYS = r"^(l1d|l2|dram|mem|sm|gpu|noc|clock|dispatcher\.[a-z_]+$)"


def config_cases(binary, work, platforms):
    cases = []
    for key, typ, _ in param_table(binary, "fermi"):
        runs = []  # (platform, context settings)
        for pattern, platform, extra in CONTEXTS:
            m = re.search(pattern, key)
            if m:
                runs.append((platform, extra(m)))
                break
        else:
            runs.append(("fermi", []))
            if re.search(CORE_KEYS, key):
                runs += [(p, []) for p in platforms if p != "fermi"]
        if typ == "string" and key.startswith("dispatcher."):
            typ = "policy-string"  # parsed by the policy: every value is lenient
        for platform, context in runs:
            key_re = [re.escape(key)]
            base = ["run", "--platform", platform, "--workload", "vecadd", "--set",
                    "workload.n=2048", "--quiet"] + SIM_LIMITS
            for s in context:
                base += ["--set", s]
            for v in BAD_VALUES.get(typ, []):
                cases.append(Case("config", "%s %s=%r" % (platform, key, v),
                                  base + ["--set", "%s=%s" % (key, v)], True, key_re))
            odd = list(ODD_VALUES.get(typ, []))
            if typ == "enum":
                odd += enum_choices(binary, platform, key)
            for v in odd:
                # A legal value may be refused for a reason another key states: any key name.
                cases.append(Case("config", "%s %s=%r" % (platform, key, v),
                                  base + ["--set", "%s=%s" % (key, v)], False,
                                  key_re + [r"'[a-z0-9_]+(\.[a-z0-9_-]+)+'", r"\b[a-z0-9_]+\.[a-z0-9_]+\b"]))
    # Combinations the single-key sweep cannot reach.
    combos = [
        ["l1d.line=128", "l1d.sector=96"], ["l1d.line=64", "l1d.sector=128"],
        ["l1d.size=48KiB", "l1d.assoc=5"], ["l1d.size=16KiB", "l1d.assoc=1024"],
        ["l2.size=768KiB", "l2.assoc=7"], ["l2.size=1KiB", "l2.assoc=16"],
        ["gpu.sms=1", "gpu.sms_per_cluster=2"], ["gpu.sms=3", "gpu.sms_per_cluster=2"],
        ["mem.channels=1", "mem.subpartitions_per_channel=0"], ["mem.channels=0"],
        ["sm.max_threads=32", "sm.max_warps=1"], ["sm.registers=64", "sm.register_alloc_unit=64"],
        ["l1d.enabled=false", "l1d.size=0"],
        ["clock.core=1kHz", "clock.dram=100GHz"], ["clock.core=100GHz", "clock.noc=1kHz"],
    ]
    for c in combos:
        args = ["run", "--platform", "fermi", "--workload", "vecadd", "--set", "workload.n=2048",
                "--quiet"] + SIM_LIMITS
        for s in c:
            args += ["--set", s]
        cases.append(Case("config", "fermi " + " ".join(c), args, False,
                          [r"\b[a-z0-9_]+\.[a-z0-9_]+\b"]))
    # Workloads that use shared memory and barriers, with no or tiny shared memory per SM.
    for wl in ("matmul", "histogram", "bfs"):
        for s in ("sm.shared_memory=0", "sm.shared_memory=1", "sm.max_ctas=0", "sm.max_warps=0",
                  "sm.registers=0", "sm.max_threads=0", "sm.schedulers=0", "sm.shared_banks=0"):
            cases.append(Case("config", "fermi %s %s" % (wl, s),
                              ["run", "--platform", "fermi", "--workload", wl, "--quiet", "--set",
                               s] + SIM_LIMITS, False, [r"\b[a-z0-9_]+\.[a-z0-9_]+\b"]))
    return cases


# ---- JSON files ---------------------------------------------------------------------------------

def json_cases(binary, work):
    cases = []
    src = open(os.path.join(ROOT, "platforms/fermi.json"), "rb").read()
    counter = [0]

    def cfg(name, text, strict=True, names=None, platform="fermi"):
        counter[0] += 1
        f = os.path.join(work, "cfg%04d.json" % counter[0])

        def setup():
            with open(f, "wb") as h:
                h.write(text)
        cases.append(Case("json", name, ["run", "--platform", platform, "--config", f,
                                         "--workload", "vecadd", "--set", "workload.n=2048",
                                         "--quiet"] + SIM_LIMITS,
                          strict, names or [re.escape(f)], setup=setup))

    for off in sorted({1, 2, 10, len(src) // 4, len(src) // 2, len(src) - 3, len(src) - 2}):
        cfg("fermi.json truncated at byte %d" % off, src[:off],
            names=[re.escape("cfg") + r"\d+\.json:\d+"])
    cfg("empty file", b"")
    cfg("binary junk", bytes(random.Random(7).randrange(256) for _ in range(300)))
    cfg("top-level array", b"[1,2,3]")
    cfg("top-level string", b"\"l1d.size\"")
    cfg("top-level null", b"null")
    cfg("deep nesting", b"{\"a\":" * 100 + b"1" + b"}" * 100)
    cfg("very deep nesting", b"[" * 100000)
    cfg("duplicate key", b"{\"l1d\": {\"size\": \"16KiB\", \"size\": \"32KiB\"}}",
        names=[r"l1d\.size|size"])
    cfg("unknown key", b"{\"l1d\": {\"sizee\": 1}}", names=[r"l1d\.sizee"])
    cfg("array value", b"{\"l1d\": {\"size\": [16384]}}", names=[r"l1d\.size"])
    cfg("object value with unknown leaf", b"{\"l1d\": {\"size\": {\"x\": 1}}}",
        names=[r"l1d\.size"])
    cfg("empty object value", b"{\"l1d\": {\"size\": {}}}", names=[r"l1d\.size"])
    cfg("null value", b"{\"l1d\": {\"size\": null}}", names=[r"l1d\.size"])
    cfg("1e400 number", b"{\"l1d\": {\"size\": 1e400}}", names=[r"cfg\d+\.json:1:\d+: "])
    cfg("huge integer", b"{\"l1d\": {\"size\": 184467440737095516160}}", names=[r"l1d\.size"])
    cfg("negative size", b"{\"l1d\": {\"size\": -16384}}", names=[r"l1d\.size"])
    cfg("fractional size", b"{\"l1d\": {\"size\": 16384.5}}", names=[r"l1d\.size"])
    cfg("bool for a size", b"{\"l1d\": {\"size\": true}}", names=[r"l1d\.size"])
    cfg("string for a bool", b"{\"check\": {\"data\": \"perhaps\"}}", names=[r"check\.data"])
    cfg("number for an enum", b"{\"l1d\": {\"write_hit\": 3}}", names=[r"l1d\.write_hit"])
    cfg("NaN literal", b"{\"l1d\": {\"size\": NaN}}")
    cfg("comment", b"// c\n{\"l1d\": {\"size\": 16384}}")
    cfg("trailing comma", b"{\"l1d\": {\"size\": 16384,}}")
    cfg("invalid UTF-8 key", b"{\"l1d\xff\": 1}")
    cfg("NUL in key", b"{\"l1d\\u0000size\": 1}")
    cfg("dotted key at top", b"{\"l1d.size\": \"8KiB\"}", strict=False)
    cfg("2 MB string", b"{\"l1d\": {\"size\": \"" + b"9" * (2 << 20) + b"\"}}",
        names=[r"l1d\.size"])
    # Missing file, a directory, an unreadable name.
    cases.append(Case("json", "--config missing file",
                      ["run", "--platform", "fermi", "--config", "/nonexistent/x.json",
                       "--workload", "vecadd"], True, [r"/nonexistent/x\.json"]))
    cases.append(Case("json", "--config a directory",
                      ["run", "--platform", "fermi", "--config", work, "--workload", "vecadd"],
                      True, [re.escape(work)]))
    # Platform directory (LOCSIM_PLATFORM_DIR is not used here; --platform with odd names).
    for name in ("nosuch", "", "../fermi", "/etc/passwd", "fermi.json", "FERMI"):
        cases.append(Case("json", "--platform %r" % name,
                          ["run", "--platform", name, "--workload", "vecadd", "--quiet"],
                          True, [re.escape(name) if name else "platform"]))
    # Platform files read from LOCSIM_PLATFORM_DIR.
    pdir = os.path.join(work, "platforms")
    for name, text in (("cut", src[:len(src) // 2]), ("empty", b""), ("array", b"[]"),
                       ("unknown", src.replace(b"{", b"{\"nosuch\": 1, ", 1)),
                       ("zero_sms", src.replace(b"\"sms\": 15", b"\"sms\": 0", 1))):
        def setup(name=name, text=text):
            os.makedirs(pdir, exist_ok=True)
            with open(os.path.join(pdir, name + ".json"), "wb") as h:
                h.write(text)
        cases.append(Case("json", "LOCSIM_PLATFORM_DIR platform %s" % name,
                          ["run", "--platform", name, "--workload", "vecadd", "--quiet"], True,
                          [re.escape(name + ".json") + r"|gpu\.sms"], setup=setup,
                          env={"LOCSIM_PLATFORM_DIR": pdir}))
    cases.append(Case("json", "LOCSIM_PLATFORM_DIR missing directory",
                      ["run", "--platform", "fermi", "--workload", "vecadd", "--quiet"], True,
                      [r"LOCSIM_PLATFORM_DIR='/nonexistent'"],
                      env={"LOCSIM_PLATFORM_DIR": "/nonexistent"}))
    # Sweep files.
    head = b"\"platforms\": [\"fermi\"], \"workloads\": [\"vecadd\"]"
    sweeps = [
        ("empty sweep", b""), ("sweep array", b"[]"), ("sweep junk", b"\x00\x01garbage"),
        ("sweep without runs", b"{}"), ("sweep 1e400", b"{\"platforms\": [1e400]}"),
        ("sweep deep nesting", b"[" * 100000),
        ("sweep unknown field", b"{" + head + b", \"nosuch\": 1}"),
        ("sweep platforms not a list", b"{\"platforms\": \"fermi\", \"workloads\": [\"vecadd\"]}"),
        ("sweep empty platforms", b"{\"platforms\": [], \"workloads\": [\"vecadd\"]}"),
        ("sweep platform number", b"{\"platforms\": [3], \"workloads\": [\"vecadd\"]}"),
        ("sweep workload object without name", b"{\"platforms\": [\"fermi\"], "
                                               b"\"workloads\": [{\"set\": {}}]}"),
        ("sweep workload set not an object", b"{\"platforms\": [\"fermi\"], "
                                             b"\"workloads\": [{\"name\": \"vecadd\", \"set\": 3}]}"),
        ("sweep grid axis not a list", b"{" + head + b", \"grid\": {\"l1d.size\": \"16KiB\"}}"),
        ("sweep grid empty axis", b"{" + head + b", \"grid\": {\"l1d.size\": []}}"),
        ("sweep grid value an object", b"{" + head + b", \"grid\": {\"l1d.size\": [{}]}}"),
        ("sweep grid value null", b"{" + head + b", \"grid\": {\"l1d.size\": [null]}}"),
        ("sweep points not a list", b"{" + head + b", \"points\": {\"l1d.ways\": 4}}"),
        ("sweep point not an object", b"{" + head + b", \"points\": [4]}"),
        ("sweep key in set and grid", b"{" + head + b", \"set\": {\"l1d.ways\": 4}, "
                                      b"\"grid\": {\"l1d.ways\": [4, 8]}}"),
        ("sweep run listed twice", b"{" + head + b", \"points\": [{\"l1d.ways\": 4}, "
                                   b"{\"l1d.ways\": 4}]}"),
        ("sweep huge product", b"{" + head + b", \"grid\": {" + b", ".join(
            b"\"k%d.x\": [1,2,3,4,5,6,7,8,9,10]" % i for i in range(12)) + b"}}"),
        ("sweep gpgpusim_configs not a list", b"{" + head + b", \"gpgpusim_configs\": 3}"),
    ]
    for name, text in sweeps:
        counter[0] += 1
        f = os.path.join(work, "sweep%04d.json" % counter[0])
        out = os.path.join(work, "sweep%04d.out" % counter[0])

        def setup(f=f, text=text):
            with open(f, "wb") as h:
                h.write(text)
        cases.append(Case("json", name, ["sweep", f, "--dry-run", "-o", out], True,
                          [re.escape(f)], setup=setup))
    return cases


# ---- command lines ------------------------------------------------------------------------------

def cli_cases(binary, work):
    cases = []
    f = os.path.join(work, "cli_out.json")
    d = work
    run = ["run", "--platform", "fermi", "--workload", "vecadd", "--set", "workload.n=2048",
           "--quiet"]

    def c(name, args, names, strict=True):
        cases.append(Case("cli", name, args, strict, names))

    # Documented exception: no command at all prints the usage after the error line.
    cases.append(Case("cli", "no command", [], True, [r"missing command"], one_line=False))
    c("unknown command", ["rnu"], [r"rnu"])
    c("unknown option", run + ["--frobnicate"], [r"frobnicate"])
    c("unknown short option", run + ["-Z"], [r"-Z"])
    c("--platform without value", ["run", "--workload", "vecadd", "--platform"], [r"platform"])
    c("--set without value", run + ["--set"], [r"set"])
    c("--set without =", run + ["--set", "l1d.size"], [r"l1d\.size"])
    c("--set =1", run + ["--set", "=1"], [r"=1"])
    c("--set unknown key", run + ["--set", "l1d.sise=1"], [r"l1d\.sise"])
    c("--set workload.nosuch", run + ["--set", "workload.nosuch=1"], [r"nosuch"])
    c("--set workload.n=abc", run + ["--set", "workload.n=abc"], [r"workload\.n|\bn\b"])
    c("--set workload.n=-1", run + ["--set", "workload.n=-1"], [r"workload\.n|\bn\b"])
    c("--set workload.n=0", run + ["--set", "workload.n=0"], [r"workload\.n|\bn\b"], False)
    c("--set workload.n=2^40", run + ["--set", "workload.n=1099511627776"],
      [r"workload\.n|\bn\b"], False)
    c("--set workload.n=18446744073709551616", run + ["--set", "workload.n=18446744073709551616"],
      [r"workload\.n|\bn\b"])
    c("--set workload.preset=nosuch", run + ["--set", "workload.preset=nosuch"], [r"nosuch"])
    c("unknown workload", ["run", "--platform", "fermi", "--workload", "nosuch"], [r"nosuch"])
    c("--workload and --trace", run + ["--trace", "x"], [r"--trace"])
    c("--trace missing file", ["run", "--platform", "fermi", "--trace", "/nonexistent/k.g"],
      [r"/nonexistent/k\.g"])
    c("--trace a directory", ["run", "--platform", "fermi", "--trace", d], [re.escape(d)])
    c("--trace /dev/null", ["run", "--platform", "fermi", "--trace", "/dev/null"],
      [r"/dev/null"])
    c("--stats-json into a missing directory", run + ["--stats-json", "/nonexistent/s.json"],
      [r"/nonexistent/s\.json"])
    c("--stats-json a directory", run + ["--stats-json", d], [re.escape(d)])
    c("--stats-csv a directory", run + ["--stats-csv", d], [re.escape(d)])
    c("--stats-json = --stats-csv", run + ["--stats-json", f, "--stats-csv", f], [re.escape(f)])
    c("--stats-json twice", run + ["--stats-json", f, "--stats-json", f], [r"stats-json"])
    c("--platform twice", run + ["--platform", "volta"], [r"platform"])
    c("--sample-interval without --samples", run + ["--sample-interval", "1000"],
      [r"--samples"])
    c("--sample-interval 0", run + ["--sample-interval", "0", "--samples", f],
      [r"sample-interval"])
    c("--sample-interval -1", run + ["--sample-interval", "-1", "--samples", f],
      [r"sample-interval"])
    c("--sample-interval abc", run + ["--sample-interval", "abc", "--samples", f],
      [r"sample-interval"])
    c("--sample-interval 2^64-1", run + ["--sample-interval", "18446744073709551615",
                                         "--samples", f], [r"sample-interval"])
    c("--samples a directory", run + ["--sample-interval", "10000", "--samples", d],
      [re.escape(d)])
    c("--timeline-window without --timeline", run + ["--timeline-window", "0:10"],
      [r"timeline"])
    for w in ("10:0", "a:b", "5", ":", "0:18446744073709551616", "-1:5"):
        c("--timeline-window %s" % w, run + ["--timeline", f, "--timeline-window", w],
          [r"timeline-window"])
    c("--timeline a directory", run + ["--timeline", d], [re.escape(d)])
    c("--gpgpusim-config missing", run + ["--gpgpusim-config", "/nonexistent/g.config"],
      [r"/nonexistent/g\.config"])
    c("--gpgpusim-config a directory", run + ["--gpgpusim-config", d], [re.escape(d)])
    c("list nothing", ["list"], [r"list"])
    c("list nosuch", ["list", "nosuch"], [r"nosuch"])
    c("params nosuch platform", ["params", "--platform", "nosuch"], [r"nosuch"])
    c("elaborate without platform", ["elaborate"], [r"platform"])
    c("export-trace without dir", ["export-trace", "--workload", "vecadd"], [r"directory"])
    c("export-trace into a file", ["export-trace", "--workload", "vecadd", "/etc/hostname"],
      [r"/etc/hostname"])
    c("export-trace into /proc", ["export-trace", "--workload", "vecadd", "/proc/locsim"],
      [r"/proc/locsim"])
    c("export-trace workload.n=0", ["export-trace", "--workload", "vecadd", "--set",
                                    "workload.n=0", os.path.join(d, "exp0")],
      [r"workload\.n|\bn\b"], False)
    c("replay --workload and --trace", ["replay", "--platform", "fermi", "--workload", "vecadd",
                                        "--trace", "x"], [r"--trace"])
    c("analyze nothing", ["analyze"], [r"workload|trace"])
    for o, v in (("--graph-bytes", "0"), ("--graph-bytes", "3"), ("--graph-bytes", "abc"),
                 ("--block-bytes", "0"), ("--block-bytes", "-1"), ("--max-sharers", "x"),
                 ("--graph-bytes", "4294967296")):
        c("analyze %s %s" % (o, v), ["analyze", "--workload", "vecadd", o, v], [re.escape(o)])
    c("sweep without spec", ["sweep"], [r"sweep|spec"])
    c("sweep missing spec", ["sweep", "/nonexistent/s.json"], [r"/nonexistent/s\.json"])
    c("sweep -j 0", ["sweep", "/nonexistent/s.json", "-j", "0"], [r"-j|jobs|/nonexistent"])
    c("sweep -j abc", ["sweep", "/nonexistent/s.json", "-j", "abc"], [r"-j|jobs"])
    c("sweep -j 100000", ["sweep", "/nonexistent/s.json", "-j", "100000"],
      [r"-j|jobs|/nonexistent"])
    return cases


# ---- memory versus trace size -------------------------------------------------------------------

def write_stream_trace(d, ctas, insts_per_warp=8, warps=4, kernels=1):
    """A streaming kernel: every warp loads and stores its own lines (no reuse)."""
    os.makedirs(d, exist_ok=True)
    threads = 32 * warps
    with open(os.path.join(d, "kernel-1.traceg"), "w") as f:
        f.write("-kernel name = stream\n-kernel id = 1\n-grid dim = (%d,1,1)\n"
                "-block dim = (%d,1,1)\n-shmem = 0\n-nregs = 8\n"
                "-accelsim tracer version = 4\n\n" % (ctas, threads))
        for c in range(ctas):
            f.write("#BEGIN_TB\nthread block = %d,0,0\n" % c)
            for w in range(warps):
                f.write("warp = %d\ninsts = %d\n" % (w, insts_per_warp))
                for i in range(insts_per_warp - 1):
                    addr = 0x10000000 + ((c * warps + w) * insts_per_warp + i) * 128
                    op = "LDG.E" if i % 2 == 0 else "STG.E"
                    f.write("%04x ffffffff 1 R4 %s 1 R2 4 1 0x%016x 4\n" % (i * 8, op, addr))
                f.write("%04x ffffffff 0 EXIT 0 0\n" % ((insts_per_warp - 1) * 8))
            f.write("#END_TB\n")
    with open(os.path.join(d, "kernelslist.g"), "w") as f:
        f.write("MemcpyHtoD,0x0000000010000000,%d\n" % (ctas * warps * insts_per_warp * 128))
        f.write("kernel-1.traceg\n" * kernels)
    return os.path.getsize(os.path.join(d, "kernel-1.traceg")) * kernels


def memory_check(binary, work):
    """Peak RSS of a streaming trace grown 4x in each of three ways; returns (failures, lines).

    The reader keeps 16 bytes per warp of every kernel (where its lines start) and streams the
    instructions, so 4x the instructions per warp must not move the peak at all, and 4x the
    CTAs or the kernels may add only those 16 bytes per warp. A reader that held the text would
    add the trace's size.
    """
    import json
    failures, lines = [], []
    base = dict(ctas=2048, insts_per_warp=8, warps=4, kernels=1)
    grown = {"CTAs": dict(base, ctas=8192), "instructions": dict(base, insts_per_warp=32),
             "kernels": dict(base, kernels=4)}

    def peak(name, shape):
        d = os.path.join(work, "mem_" + name)
        size = write_stream_trace(d, **shape)
        js = os.path.join(work, "mem_%s.json" % name)
        code, err, _ = run_binary(binary, ["run", "--platform", "fermi", "--quiet", "--trace",
                                           os.path.join(d, "kernelslist.g"), "--stats-json", js],
                                  timeout=600)
        if code != 0:
            raise RuntimeError("memory check %s: exit %s %s" % (name, code, err.strip()))
        return size, json.load(open(js))["host"]["peak_rss_mb"]

    s0, p0 = peak("base", base)
    lines.append("memory: base %s: trace %.1f MB, peak RSS %.1f MB" % (base, s0 / 1e6, p0))
    for what, shape in grown.items():
        s1, p1 = peak(what, shape)
        warps = shape["ctas"] * shape["warps"] * shape["kernels"] - \
            base["ctas"] * base["warps"] * base["kernels"]
        bound = 2.0 + 16 * warps / 2**20  # the index, plus 2 MB of allocator noise
        lines.append("memory: 4x %s: trace %.1f MB (+%.1f MB), peak RSS %.1f MB (%+.1f MB, "
                     "bound %.1f MB)" % (what, s1 / 1e6, (s1 - s0) / 1e6, p1, p1 - p0, bound))
        if p1 - p0 > bound:
            failures.append("memory: 4x %s: peak RSS grew %.1f MB (bound %.1f MB) for %.1f MB "
                            "more trace" % (what, p1 - p0, bound, (s1 - s0) / 1e6))
    return failures, lines


# ---- driver -------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locsim", default=os.path.join(ROOT, "build-cc/locsim"))
    ap.add_argument("--only", default="trace,config,json,cli,memory")
    ap.add_argument("--platforms", default="fermi,volta,pascal,clustered,mesh,mcm",
                    help="platforms whose parameters the config family attacks")
    ap.add_argument("--grep", default="", help="run only cases whose name matches this regex")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("-v", action="store_true", help="print every case")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    binary = os.path.abspath(a.locsim)
    families = a.only.split(",")
    known = {"trace", "config", "json", "cli", "memory"}
    unknown = [f for f in families if f not in known]
    if unknown:
        print(f"fuzz_inputs.py: error: unknown family '{unknown[0]}' for --only "
              f"(one of: {', '.join(sorted(known))})", file=sys.stderr)
        return 2
    if not os.access(binary, os.X_OK):
        print(f"fuzz_inputs.py: error: --locsim {a.locsim} is not an executable", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="locsim_fuzz_")
    cases = []
    if "trace" in families:
        cases += trace_cases(binary, work)
    if "config" in families:
        cases += config_cases(binary, work, a.platforms.split(","))
    if "json" in families:
        cases += json_cases(binary, work)
    if "cli" in families:
        cases += cli_cases(binary, work)
    if a.grep:
        cases = [c for c in cases if re.search(a.grep, c.name)]
    failures = []
    t0 = time.monotonic()

    def one(case):
        if case.setup:
            case.setup()
        code, err, rss = run_binary(binary, case.args, cwd=case.cwd, extra_env=case.env)
        return case, code, err, rss, judge(case, code, err, rss)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        for case, code, err, rss, why in ex.map(one, cases):
            first = err.strip().splitlines()[0] if err.strip() else ""
            if why:
                failures.append("%s: %s: %s [exit %s] %s" % (case.family, case.name, why, code,
                                                               first[:300]))
            if a.v or why:
                print("%-4s %-7s %-60s exit %-7s %5.0f MB  %s"
                      % ("FAIL" if why else "ok", case.family, case.name[:60], code, rss,
                         first[:160]), flush=True)
    if "memory" in families:
        f, lines = memory_check(binary, work)
        failures += f
        for line in lines:
            print(line)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    print("%d cases, %d failures, %.0f s" % (len(cases), len(failures), time.monotonic() - t0))
    for f in failures:
        print("FAILURE " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
