#!/usr/bin/env python3
"""Hand-written Accel-Sim traces (tracer format 4, Volta binary version 70) for the Accel-Sim
comparison (docs/validation/accelsim.md).

  scripts/accelsim_traces.py OUTDIR        writes OUTDIR/latency/<chain>/ and OUTDIR/saxpy_<N>/

Latency chains: one CTA of one warp, all 32 lanes loading the same 8-byte word (one 32 B sector
per load after coalescing; a warp whose lanes do not all reach EXIT crashes Accel-Sim), an
unrolled chain `LDG.E.64 R2, [R2]` (each load's destination is the next load's address), framed
by `MOV R2` and a consuming `IADD3 R4 <- R2`, then `EXIT`. No MemcpyHtoD lines, so nothing is
pre-loaded into Accel-Sim's L2.

  zero          no load (fixed overhead)
  l1_p1/l1_p65  8 lines (128 B apart), 1 pass / 65 passes: (c65 - c1) / 512 = L1 hit
  l2_1pass      2048 lines (256 KiB: > the largest L1, < L2), cold: DRAM
  l2_2pass      the same twice in one kernel: (c2 - c1) / 2048 = L2 hit (LRU L1 misses)
  l2_2kern      the two passes as two kernels
  dram_n256/512 first-touch loads 4 KiB apart: (c512 - c256) / 256 = DRAM
  l2strong_*    8 lines with LDG.E.64.STRONG.GPU (Accel-Sim sends it past L1)

SAXPY: y[i] = a*x[i] + y[i], 256 threads per CTA, grid-stride loop with 4 trips, n = CTAs x 1024
floats, 48 warp instructions per warp with real register dependencies, MemcpyHtoD of x and y.
"""
import os
import sys

FULL = 0xffffffff
LINE = 128

HEADER = """-kernel name = {name}
-kernel id = {kid}
-grid dim = ({grid},1,1)
-block dim = ({block},1,1)
-shmem = 0
-nregs = {nregs}
-binary version = {binver}
-cuda stream id = 0
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007f0100000000
-nvbit version = 1.5.5
-accelsim tracer version = 4

#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width \
[adrrescompress?] [mem_addresses] immediate

"""


def inst(pc, dsts, opcode, srcs, width=0, base=None, stride=None):
    """One instruction line, all lanes active; memory operands use address mode 1 (base, stride)."""
    f = ["%04x" % pc, "%08x" % FULL, str(len(dsts))] + ["R%d" % r for r in dsts]
    f += [opcode, str(len(srcs))] + ["R%d" % r for r in srcs] + [str(width)]
    if width:
        f += ["1", "0x%016x" % base, str(stride)]
    return " ".join(f)


def write_trace(d, memcpys, kernels):
    """kernels: list of (name, grid, block, nregs, binver, ctas); ctas: list of lists of warps."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernelslist.g"), "w") as f:
        for addr, nbytes in memcpys:
            f.write("MemcpyHtoD,0x%016x,%d\n" % (addr, nbytes))
        for k in range(1, len(kernels) + 1):
            f.write("kernel-%d.traceg\n" % k)
    for kid, (name, grid, block, nregs, binver, ctas) in enumerate(kernels, start=1):
        with open(os.path.join(d, "kernel-%d.traceg" % kid), "w") as f:
            f.write(HEADER.format(name=name, kid=kid, grid=grid, block=block, nregs=nregs,
                                  binver=binver))
            for c, warps in enumerate(ctas):
                f.write("#BEGIN_TB\n\nthread block = %d,0,0\n\n" % c)
                for w, lines in enumerate(warps):
                    f.write("warp = %d\ninsts = %d\n" % (w, len(lines)))
                    f.write("".join(line + "\n" for line in lines) + "\n")
                f.write("#END_TB\n\n")


def chain(addrs, opcode="LDG.E.64"):
    lines = [inst(0, [2], "MOV", [])]
    for i, a in enumerate(addrs):
        lines.append(inst(0x10 * (i + 1), [2], opcode, [2], 8, a, 0))
    end = 0x10 * (len(addrs) + 1)
    return lines + [inst(end, [4], "IADD3", [2]), inst(end + 0x10, [], "EXIT", [])]


# (directory, [(kernel name, addresses, opcode)]): the latency chains
L1_LINES = [0x10000000 + i * LINE for i in range(8)]
L2_LINES = [0x20000000 + i * LINE for i in range(2048)]
STRONG_LINES = [0x30000000 + i * LINE for i in range(8)]
LD, STRONG = "LDG.E.64", "LDG.E.64.STRONG.GPU"
CHAINS = [
    ("zero", [("chain_zero", [], LD)]),
    ("l1_p1", [("chain_l1", L1_LINES, LD)]),
    ("l1_p65", [("chain_l1", L1_LINES * 65, LD)]),
    ("l2_1pass", [("chain_l2", L2_LINES, LD)]),
    ("l2_2pass", [("chain_l2", L2_LINES * 2, LD)]),
    ("l2_2kern", [("chain_l2_warm", L2_LINES, LD), ("chain_l2_hit", L2_LINES, LD)]),
    ("dram_n256", [("chain_dram", [0x40000000 + i * 4096 for i in range(256)], LD)]),
    ("dram_n512", [("chain_dram", [0x40000000 + i * 4096 for i in range(512)], LD)]),
    ("l2strong_p1", [("chain_l2strong", STRONG_LINES, STRONG)]),
    ("l2strong_p65", [("chain_l2strong", STRONG_LINES * 65, STRONG)]),
]


def write_chain(outdir, name):
    kernels = dict(CHAINS)[name]
    write_trace(os.path.join(outdir, name), [],
                [(k, 1, 32, 32, 70, [[chain(addrs, op)]]) for k, addrs, op in kernels])
    return sum(len(a) for _, a, _ in kernels)


SAXPY_X, SAXPY_Y, SAXPY_TPB, SAXPY_TRIPS = 0x10000000, 0x10800000, 256, 4


def saxpy_warp(cta, w, grid):
    lines = [inst(0x00, [0], "S2R", []), inst(0x10, [3], "S2R", []),
             inst(0x20, [0], "IMAD", [0, 3])]
    for t in range(SAXPY_TRIPS):
        i0 = cta * SAXPY_TPB + w * 32 + t * grid * SAXPY_TPB  # lane 0's element
        x, y = SAXPY_X + 4 * i0, SAXPY_Y + 4 * i0
        lines += [inst(0x30, [2], "IMAD.WIDE", [0]), inst(0x40, [4], "IMAD.WIDE", [0]),
                  inst(0x50, [7], "LDG.E", [2], 4, x, 4), inst(0x60, [6], "LDG.E", [4], 4, y, 4),
                  inst(0x70, [9], "MOV", []), inst(0x80, [7], "FFMA", [7, 9, 6]),
                  inst(0x90, [], "STG.E", [4, 7], 4, y, 4), inst(0xa0, [11], "MOV", []),
                  inst(0xb0, [0], "IMAD", [11, 0]), inst(0xc0, [], "ISETP.GE.AND", [0]),
                  inst(0xd0, [], "BRA", [])]
    return lines + [inst(0xe0, [], "EXIT", [])]


def write_saxpy(outdir, grid):
    n = grid * SAXPY_TPB * SAXPY_TRIPS
    ctas = [[saxpy_warp(c, w, grid) for w in range(SAXPY_TPB // 32)] for c in range(grid)]
    write_trace(os.path.join(outdir, "saxpy_%d" % grid), [(SAXPY_X, 4 * n), (SAXPY_Y, 4 * n)],
                [("_Z5saxpyifPKfPf", grid, SAXPY_TPB, 16, 70, ctas)])


def write_all(outdir):
    for name, _ in CHAINS:
        write_chain(os.path.join(outdir, "latency"), name)
    for grid in (120, 240):
        write_saxpy(outdir, grid)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write_all(sys.argv[1])
