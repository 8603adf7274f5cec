// Accel-Sim trace reader and writer: line parsing, headers, TB/warp structure, error messages,
// .xz input and the writer -> reader round trip of the instruction streams.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/accelsim/accelsim_trace.h"
#include "stimuli/accelsim/trace_export.h"
#include "stimuli/workload_registry.h"

using namespace locsim;

namespace {

std::string tdir() {
  static const std::string d = [] {
    std::string p = "/tmp/locsim_trace_ut_" + std::to_string(getpid());
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string p = tdir() + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string header(const std::string& grid = "(1,1,1)", const std::string& block = "(32,1,1)",
                   int version = 4) {
  return "-kernel name = k\n"
         "-kernel id = 1\n"
         "-grid dim = " +
         grid +
         "\n"
         "-block dim = " +
         block +
         "\n"
         "-shmem = 1024\n"
         "-nregs = 24\n"
         "-binary version = 70\n"
         "-cuda stream id = 0\n"
         "-shmem base_addr = 0x00007f0000000000\n"
         "-local mem base_addr = 0x00007f0100000000\n"
         "-nvbit version = 1.5.5\n"
         "-accelsim tracer version = " +
         std::to_string(version) +
         "\n\n"
         "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
         "[adrrescompress?] [mem_addresses]\n\n";
}

// One TB with one warp holding `lines` (after header(), "#BEGIN_TB" is line 16).
std::string one_warp(const std::vector<std::string>& lines, const std::string& tb = "0,0,0") {
  std::string s = "#BEGIN_TB\n\nthread block = " + tb +
                  "\n\nwarp = 0\ninsts = " + std::to_string(lines.size()) + "\n";
  for (const auto& l : lines) s += l + "\n";
  return s + "\n#END_TB\n";
}

// A warp's instructions with their lanes written, as every consumer reads them (a linear
// instruction's lanes past the first are left to WarpInst::fill_lanes()).
std::vector<WarpInst> drain(const Kernel& k, std::uint32_t cta, std::uint32_t warp) {
  std::vector<WarpInst> v;
  auto s = k.warp_stream(cta, warp);
  WarpInst in;
  while (s->next(in)) {
    in.fill_lanes();
    v.push_back(in);
  }
  return v;
}

// WarpInst::addr is specified for memory instructions only.
bool is_memory(const WarpInst& in) {
  return in.op == WarpOp::Load || in.op == WarpOp::Store || in.op == WarpOp::Atomic ||
         in.op == WarpOp::SharedLoad || in.op == WarpOp::SharedStore;
}
// Equal lane addresses, or not a memory instruction (`a` after fill_lanes()).
bool same_lanes(const WarpInst& a, const WarpInst& b) {
  return !is_memory(b) || a.addr == b.addr;
}

WarpInst parse(const std::string& line, bool last = false,
               const std::vector<TraceMemcpy>& regions = {}) {
  TraceKernelInfo info;
  info.version = 4;
  WarpInst in;
  parse_trace_inst(line, info, last, regions, "t:1", in);
  return in;
}

std::string error_of(const std::string& path) {
  try {
    open_accelsim_kernel(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string parse_error(const std::string& line) {
  try {
    parse(line);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("trace: header fields are read", "[trace]") {
  std::string tb;
  for (int c = 0; c < 2; ++c) {
    tb += "#BEGIN_TB\nthread block = " + std::to_string(c) + ",0,0\n";
    for (int w = 0; w < 2; ++w)
      tb += "warp = " + std::to_string(w) + "\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n";
    tb += "#END_TB\n";
  }
  auto p = write("hdr.traceg", header("(2,1,1)", "(64,1,1)") + tb);
  auto k = open_accelsim_kernel(p);
  CHECK(k->name() == "k");
  CHECK(k->grid().x == 2);
  CHECK(k->block().x == 64);
  CHECK(k->warps_per_cta() == 2);
  CHECK(k->regs_per_thread() == 24);
  CHECK(k->shared_mem_bytes() == 1024);
  auto v = drain(*k, 1, 1);
  REQUIRE(v.size() == 1);
  CHECK(v[0].op == WarpOp::Exit);
}

TEST_CASE("trace: address mode 0 lists the active lanes", "[trace]") {
  WarpInst in = parse("0010 00000005 1 R4 LDG.E 1 R2 4 0 0x100 0x200 0");
  CHECK(in.op == WarpOp::Load);
  CHECK(in.pc == 0x10);
  CHECK(in.active_mask == 5u);
  CHECK(in.addr[0] == 0x100);
  CHECK(in.addr[1] == 0);
  CHECK(in.addr[2] == 0x200);
  CHECK(in.size == 4);
}

TEST_CASE("trace: address mode 1 is base plus stride over active lanes", "[trace]") {
  WarpInst in = parse("0010 0000000f 1 R4 LDG.E.64 1 R2 8 1 0x1000 8");
  CHECK(in.size == 8);
  CHECK(in.addr[0] == 0x1000);
  CHECK(in.addr[3] == 0x1018);
  CHECK(in.addr[4] == 0);
  WarpInst neg = parse("0010 00000003 1 R4 LDG.E 1 R2 4 1 0x1000 -4");
  CHECK(neg.addr[1] == 0xffc);
}

TEST_CASE("trace: hex fields of every length and case, and every bad digit", "[trace]") {
  // Hex fields are read eight digits at a time after the first (length % 8): each length, each
  // digit and letter case, and a bad byte at each position must read as a digit-by-digit scan.
  const std::string digits = "0123456789abcdefABCDEF";
  for (std::size_t n = 1; n <= 16; ++n) {
    std::string h;
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = digits[(i * 7 + n) % digits.size()];
      h += c;
      const unsigned d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      want = want << 4 | d;
    }
    INFO(h);
    CHECK(parse("0 1 1 R4 LDG.E 1 R2 4 0 0x" + h).addr[0] == want);
    CHECK(parse("0 1 1 R4 LDG.E 1 R2 4 0 " + h).addr[0] == want);
    for (std::size_t i = 0; i < n; ++i)
      for (char bad : {'g', 'G', '/', ':', '@', '`', 'x', '\xb0', '\xe1'}) {
        std::string b = h;
        b[i] = bad;
        CHECK(parse_error("0 1 1 R4 LDG.E 1 R2 4 0 0x" + b) ==
              "t:1: bad hex address '0x" + b + "'");
      }
  }
  // The same fields followed by more text (an immediate after a run of separators), so that 16
  // bytes or more follow the address: it is then read 16 bytes at a time.
  const std::string pad = "                  7";
  for (std::size_t n = 1; n <= 17; ++n) {
    std::string h;
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = digits[(i * 5 + n) % digits.size()];
      h += c;
      const unsigned d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      want = want << 4 | d;
    }
    INFO(h);
    for (const std::string& pre : {std::string("0x"), std::string("0X"), std::string()}) {
      if (n <= 16)
        CHECK(parse("0 1 1 R4 LDG.E 1 R2 4 0 " + pre + h + pad).addr[0] == want);
      else
        CHECK(parse_error("0 1 1 R4 LDG.E 1 R2 4 0 " + pre + h + pad) ==
              "t:1: bad hex address '" + pre + h + "'");
      for (std::size_t i = 0; i < n; ++i)
        for (char bad : {'g', 'G', '/', ':', '@', '`', 'x', '\xb0', '\xe1', '\x01', '\n'}) {
          std::string b = h;
          b[i] = bad;
          CHECK(parse_error("0 1 1 R4 LDG.E 1 R2 4 0 " + pre + b + pad) ==
                "t:1: bad hex address '" + pre + b + "'");
        }
    }
  }
  CHECK(parse_error("0 1 1 R4 LDG.E 1 R2 4 0 0x" + pad) == "t:1: bad hex address '0x'");
  CHECK(parse_error("0 1 1 R4 LDG.E 1 R2 4 0 0x00000000000000001") ==
        "t:1: bad hex address '0x00000000000000001'");
  CHECK(parse("FFFF 0 0 EXIT 0 0").pc == 0xffff);
  CHECK(parse("0 FFFFFFFF 0 EXIT 0 0").active_mask == 0xffffffffu);
}

TEST_CASE("trace: address mode 2 is base plus deltas", "[trace]") {
  WarpInst in = parse("0010 0000000b 1 R4 LDG.E 1 R2 4 2 0x1000 16 -8 0");
  CHECK(in.addr[0] == 0x1000);
  CHECK(in.addr[1] == 0x1010);
  CHECK(in.addr[2] == 0);
  CHECK(in.addr[3] == 0x1008);
}

TEST_CASE("trace: widths come from the opcode suffix or the width field", "[trace]") {
  CHECK(parse("0 1 1 R4 LDG.E.U8 1 R2 1 0 0x10").size == 1);
  CHECK(parse("0 1 1 R4 LDG.E.S16 1 R2 2 0 0x10").size == 2);
  CHECK(parse("0 1 1 R4 LDG.E.128 1 R2 16 0 0x10").size == 16);
  CHECK(parse("0 1 0 STG.E 2 R2 R4 8 0 0x10").size == 8);  // no suffix: the width field
  CHECK(trace_opcode_width("LDG.E.64.CONSTANT") == 8);
  CHECK(trace_opcode_width("FFMA") == 0);
}

TEST_CASE("trace: opcode mapping", "[trace]") {
  CHECK(parse("0 1 0 STG.E 2 R2 R4 4 0 0x10").op == WarpOp::Store);
  CHECK(parse("0 1 1 R4 ATOMG.E.ADD 2 R2 R5 4 0 0x10").op == WarpOp::Atomic);
  CHECK(parse("0 1 0 RED.E.ADD 2 R2 R5 4 0 0x10").op == WarpOp::Atomic);
  CHECK(parse("0 1 1 R4 LDS.U.128 1 R2 16 0 0x10").op == WarpOp::SharedLoad);
  CHECK(parse("0 1 0 STS 2 R2 R4 4 0 0x10").op == WarpOp::SharedStore);
  CHECK(parse("0 1 1 R4 LDL 1 R2 4 0 0x7f0100000010").op == WarpOp::Load);
  CHECK(parse("0 1 0 STL 2 R2 R4 4 0 0x7f0100000010").op == WarpOp::Store);
  CHECK(parse("0 ffffffff 0 BAR.SYNC 0 0").op == WarpOp::Barrier);
  CHECK(parse("0 ffffffff 0 EXIT 0 0", true).op == WarpOp::Exit);
  CHECK(parse("0 ffffffff 0 EXIT 0 0", false).op == WarpOp::Compute);  // not the last
  CHECK(parse("0 ffffffff 0 RET.ABS 0 0", true).op == WarpOp::Exit);
  WarpInst f = parse("0 ffffffff 1 R4 FFMA 3 R1 R2 R3 0");
  CHECK(f.op == WarpOp::Compute);
  CHECK(f.count == 1);
  CHECK(f.latency == 4);
  CHECK(parse("0 ffffffff 1 R4 IADD3 3 R1 R2 R3 0").latency == 1);
  CHECK(parse("0 ffffffff 1 R4 DFMA 3 R1 R2 R3 0").latency == 8);
  CHECK(parse("0 ffffffff 1 R4 MUFU.RCP 1 R1 0").latency == 16);
}

TEST_CASE("trace: tokens are split at spaces, tabs and CRs only, whatever their length",
          "[trace]") {
  // The tokenizer scans eight bytes at a time: tokens that start, end or straddle a word
  // boundary, runs of separators and a trailing CR must split as a byte-by-byte scan does.
  const WarpInst a = parse("0030 ffffffff 1 R7 LDG.E 1 R2 4 1 0x0000000010000000 4");
  const WarpInst b = parse("  0030\tffffffff  1\tR7 \t LDG.E 1 R2\t4 1   0x0000000010000000\t4 \r");
  CHECK(b.pc == a.pc);
  CHECK(b.active_mask == a.active_mask);
  CHECK(b.op == a.op);
  CHECK(b.n_dst == 1);
  CHECK(b.dst[0] == 7);
  CHECK(b.addr == a.addr);
  CHECK(a.addr[31] == 0x10000000 + 31 * 4);
  // A control byte other than a tab or CR is part of a token (a streamed line is not re-checked
  // for binary data): the PC token becomes bad hex.
  CHECK_THAT(parse_error(std::string("0030\x01 ffffffff 0 EXIT 0 0")),
             Catch::Contains("bad hex PC"));
  CHECK_THAT(parse_error(std::string("0030 ffffffff 0 EX\x01IT 0 0 0x0123456789abcdef01")),
             Catch::Contains("0x0123456789abcdef01"));
}

TEST_CASE("trace: the operands remembered at a PC are used only for the same text", "[trace]") {
  // The parser keeps what "PC mask dst_num [dsts] opcode src_num [srcs] mem_width" parsed to
  // and reuses it for a byte-identical text; anything else at that PC is parsed again.
  const WarpInst a = parse("40 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4");
  const WarpInst b = parse("40 ffffffff 1 R4 LDG.E 1 R2 4 1 0x2000 8");  // same operands
  CHECK(b.op == WarpOp::Load);
  CHECK(b.n_dst == 1);
  CHECK(b.dst[0] == 4);
  CHECK(b.addr[1] == 0x2008);
  CHECK(a.addr[1] == 0x1004);
  CHECK(parse("40 ffffffff 1 R5 LDG.E 1 R2 4 1 0x2000 8").dst[0] == 5);  // another register
  CHECK(parse("40 ffffffff 1 R5 IADD3 1 R2 0").op == WarpOp::Compute);   // another opcode
  // The remembered text "1 R4 LDG.E 1 R2 4" is a prefix of this one's: still parsed again.
  parse("40 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4");
  CHECK(parse_error("40 1 1 R4 LDG.E 1 R2 48 0 0x10") ==
        "t:1: unsupported access width 48 bytes for LDG.E (1, 2, 4, 8 or 16)");
  CHECK(parse_error("40 1 1 R4 LDG.E 1 R2x 4 0 0x10") == "t:1: bad register 'R2x'");
  // The remembered text starts at the PC (the line number, if any) and ends at the width: a
  // different active mask, or the same text in a kernel with line numbers, is parsed again.
  const WarpInst c = parse("40 0000000f 1 R4 LDG.E 1 R2 4 1 0x1000 4");
  CHECK(c.active_mask == 0xf);
  CHECK(c.addr[4] == 0);
  CHECK(parse("40 0000000f 1 R4 LDG.E 1 R2 4 1 0x1000 4").active_mask == 0xf);
  CHECK(parse("40 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4").addr[31] == 0x1000 + 31 * 4);
  TraceKernelInfo plain, numbered;
  plain.version = numbered.version = 4;
  numbered.lineinfo = true;
  for (int i = 0; i < 2; ++i) {
    WarpInst in;
    parse_trace_inst("5 10 1 0 NOP 0 0", plain, false, {}, "t:1", in);
    CHECK(in.pc == 5);
    CHECK(in.active_mask == 0x10);
    parse_trace_inst("5 10 1 0 NOP 0 0", numbered, false, {}, "t:1", in);
    CHECK(in.pc == 0x10);
    CHECK(in.active_mask == 1);
  }
}

TEST_CASE("trace: operands in any accepted form read as in the usual one", "[trace]") {
  // Lines in the usual form are read in one pass; any other form goes through the token reader.
  // Both must give the same values, and the same errors.
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 +8").addr[1] == 0x1008);
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 -8").addr[1] == 0xff8);
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 000000000000000008").addr[1] == 0x1008);
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 0000000000000000008").addr[1] == 0x1008);
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 -9223372036854775808").addr[1] ==
        0x8000000000001000ull);
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 9223372036854775808") ==
        "t:1: bad stride '9223372036854775808'");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 -") == "t:1: bad stride '-'");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 4x") == "t:1: bad stride '4x'");
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 00 0x10 0x20").addr[1] == 0x20);  // mode "00"
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4\t1\r0x1000 \t 8 \r").addr[1] == 0x1008);
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 8 0x1f").addr[1] == 0x1008);  // hex immediate
  CHECK(parse("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 8 -5").addr[1] == 0x1008);
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 8 0x1g") ==
        "t:1: unexpected token '0x1g' after the operands");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 8 5 6") ==
        "t:1: unexpected token '6' at the end of the line");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1 0x1000 8 5\x01") ==
        "t:1: unexpected token '5\x01' after the operands");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 3 0x1000 8") ==
        "t:1: unknown address compression mode '3' (0 = list, 1 = base+stride, 2 = base+deltas)");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 1") ==
        "t:1: truncated instruction: missing base address");
  const WarpInst d = parse("0 16 1 R4 LDG.E 1 R2 4 2 0x1000 -16 +48");
  CHECK(d.addr[0] == 0);
  CHECK(d.addr[1] == 0x1000);
  CHECK(d.addr[2] == 0xff0);
  CHECK(d.addr[4] == 0x1020);
  const WarpInst l = parse("0 80000001 1 R4 LDG.E 1 R2 4 0 0x10 0X20");
  CHECK(l.addr[0] == 0x10);
  CHECK(l.addr[31] == 0x20);
  CHECK(parse("0 0 1 R4 LDG.E 1 R2 4 1").op == WarpOp::Load);  // no lane: no base address
  // In the kernel index, a line whose operands before the addresses were seen before is checked
  // in full all the same: a bad tail or a control byte in it is reported at its own line.
  const std::string ld = "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4";
  const std::string ex = "0010 ffffffff 0 EXIT 0 0";
  auto bad_at_line_24 = [&](const std::string& name, const std::string& second) {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\n";
    tb += "warp = 0\ninsts = 2\n" + ld + "\n" + ex + "\n";
    tb += "warp = 1\ninsts = 2\n" + second + "\n" + ex + "\n#END_TB\n";
    return error_of(write(name, header("(1,1,1)", "(64,1,1)") + tb));
  };
  CHECK_THAT(bad_at_line_24("tail1.traceg", "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4 5 6"),
             Catch::Matchers::EndsWith(":24: unexpected token '6' at the end of the line"));
  CHECK_THAT(bad_at_line_24("tail2.traceg", "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x10z0 4"),
             Catch::Matchers::EndsWith(":24: bad hex address '0x10z0'"));
  CHECK_THAT(
      bad_at_line_24("tail3.traceg", "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000 4\x7f"),
      Catch::Matchers::EndsWith(":24: binary data (byte 0x7f at column 43): not a text trace"));
  CHECK_THAT(bad_at_line_24("tail4.traceg",
                            "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1000\x0b"
                            "4"),
             Catch::Matchers::Contains(":24: binary data (byte 0x0b at column 41)"));
  CHECK_THAT(bad_at_line_24("tail5.traceg", "0000 ffffffff 1 R4 LDG.E 1 R2 4 2 0x1000 4"),
             Catch::Matchers::EndsWith(
                 ":24: truncated instruction: missing delta (mode 2 has one per active lane after "
                 "the first)"));
  CHECK(bad_at_line_24("tail6.traceg", "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x2000 -4 0x7") ==
        "(no error)");
}

TEST_CASE("trace: shared addresses are made relative to the shmem base", "[trace]") {
  TraceKernelInfo info;
  info.shmem_base = 0x7f0000000000;
  WarpInst in;
  parse_trace_inst("0 3 1 R4 LDS 1 R2 4 0 0x7f0000000010 0x20", info, false, {}, "t:1", in);
  CHECK(in.addr[0] == 0x10);
  CHECK(in.addr[1] == 0x20);  // already an offset
}

TEST_CASE("trace: data structures come from the memcpy regions", "[trace]") {
  std::vector<TraceMemcpy> r = {{0x1000, 0x100}, {0x2000, 0x100}};
  CHECK(parse("0 1 1 R4 LDG.E 1 R2 4 0 0x2010", false, r).data_structure == 1);
  CHECK(parse("0 1 1 R4 LDG.E 1 R2 4 0 0x1010", false, r).data_structure == 0);
  CHECK(parse("0 1 1 R4 LDG.E 1 R2 4 0 0x3010", false, r).data_structure == 0xffff);
}

TEST_CASE("trace: malformed instruction lines name what is wrong", "[trace]") {
  CHECK(parse_error("0zz0 1 0 EXIT 0 0") == "t:1: bad hex PC '0zz0'");
  CHECK(parse_error("0 1ffffffff 0 EXIT 0 0") == "t:1: bad hex active mask '1ffffffff'");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 0 0x10") ==
        "t:1: truncated instruction: missing address (mode 0 lists one per active lane)");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 0 0x10 0xq") == "t:1: bad hex address '0xq'");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 7 0x10 4") ==
        "t:1: unknown address compression mode '7' (0 = list, 1 = base+stride, 2 = base+deltas)");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 4 2 0x10") ==
        "t:1: truncated instruction: missing delta (mode 2 has one per active lane after the "
        "first)");
  CHECK(parse_error("0 3 1 R4 LDG.E 1 R2 12 1 0x10 4") ==
        "t:1: unsupported access width 12 bytes for LDG.E (1, 2, 4, 8 or 16)");
  CHECK(parse_error("0 1 0 EXIT 0 0 5 6") == "t:1: unexpected token '6' at the end of the line");
  CHECK(parse_error("0 1 0 EXIT") == "t:1: truncated instruction: missing source count");
  // Tracer version 3 has no immediate: a token after the operands is an error there.
  TraceKernelInfo v3;
  v3.version = 3;
  WarpInst in;
  CHECK_THROWS_WITH(parse_trace_inst("0 1 0 EXIT 0 0 5", v3, true, {}, "t:1", in),
                    "t:1: unexpected token '5' at the end of the line");
  CHECK_NOTHROW(parse_trace_inst("0 1 0 EXIT 0 0", v3, true, {}, "t:1", in));
}

TEST_CASE("trace: warps stream lazily with the right instructions", "[trace]") {
  std::string tb;
  for (int c = 0; c < 3; ++c) {
    tb += "#BEGIN_TB\nthread block = " + std::to_string(c) + ",0,0\n";
    for (int w = 1; w >= 0; --w) {  // warps in any order
      tb += "warp = " + std::to_string(w) + "\ninsts = 3\n";
      char buf[200];
      std::snprintf(buf, sizeof buf, "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x%x 4\n",
                    0x10000 + c * 0x1000 + w * 0x100);
      tb += buf;
      tb += "0010 ffffffff 0 BAR.SYNC 0 0\n0020 ffffffff 0 EXIT 0 0\n";
    }
    tb += "#END_TB\n";
  }
  auto p = write("lazy.traceg", header("(3,1,1)", "(64,1,1)") + tb);
  auto k = open_accelsim_kernel(p);
  auto v = drain(*k, 2, 1);
  REQUIRE(v.size() == 3);
  CHECK(v[0].op == WarpOp::Load);
  CHECK(v[0].addr[0] == 0x12100);
  CHECK(v[0].addr[31] == 0x12100 + 31 * 4);
  CHECK(v[1].op == WarpOp::Barrier);
  CHECK(v[2].op == WarpOp::Exit);
  CHECK(drain(*k, 0, 0)[0].addr[0] == 0x10000);
  // Streams built in a warp slot (the SM's way, reusing the slot and the ended streams' read
  // buffers) give the same instructions, for every warp in turn and two at a time.
  WarpStreamSlot slot, other;
  for (int round = 0; round < 2; ++round)
    for (std::uint32_t c = 0; c < 3; ++c)
      for (std::uint32_t w = 0; w < 2; ++w) {
        k->emplace_warp_stream(c, w, slot);
        k->emplace_warp_stream(2 - c, 1 - w, other);
        const auto want = drain(*k, c, w);
        WarpInst in;
        for (const WarpInst& x : want) {
          REQUIRE(slot->next(in));
          in.fill_lanes();
          CHECK(in.op == x.op);
          CHECK(same_lanes(in, x));
        }
        CHECK_FALSE(slot->next(in));
        REQUIRE(other->next(in));
        CHECK(in.addr[0] == 0x10000u + (2 - c) * 0x1000 + (1 - w) * 0x100);
      }
  // .xz: the same text compressed gives the same streams.
  const std::string cmd = "xz -kf " + p;
  if (std::system(cmd.c_str()) == 0) {
    auto kx = open_accelsim_kernel(p + ".xz");
    auto vx = drain(*kx, 2, 1);
    REQUIRE(vx.size() == 3);
    CHECK(vx[0].addr[0] == 0x12100);
    auto s0 = kx->warp_stream(0, 0);
    auto s1 = kx->warp_stream(1, 1);
    WarpInst in;
    REQUIRE(s1->next(in));
    CHECK(in.addr[0] == 0x11100);
    REQUIRE(s0->next(in));
    CHECK(in.addr[0] == 0x10000);
    WarpStreamSlot xs;
    for (std::uint32_t c = 0; c < 3; ++c) {
      kx->emplace_warp_stream(c, 1, xs);
      REQUIRE(xs->next(in));
      CHECK(in.addr[0] == 0x10100u + c * 0x1000);
    }
  }
}

TEST_CASE("trace: repeated lines are checked and streamed as if each were parsed", "[trace]") {
  // The index skips a line byte-identical to one that passed with the same "last" flag, and a
  // warp stream copies a remembered instruction: EXIT in the middle of one warp and at the end
  // of the next must still differ, and a line that differs from a remembered one by a token
  // must still be rejected at its own line.
  const std::string mov = "0010 ffffffff 1 R1 MOV 0 0";
  const std::string ex = "0020 ffffffff 0 EXIT 0 0";
  std::string tb = "#BEGIN_TB\nthread block = 0,0,0\n";
  tb += "warp = 0\ninsts = 3\n" + mov + "\n" + ex + "\n" + ex + "\n";
  tb += "warp = 1\ninsts = 3\n" + mov + "\n" + mov + "\n" + ex + "\n";
  auto p = write("repeat.traceg", header("(1,1,1)", "(64,1,1)") + tb + "#END_TB\n");
  auto k = open_accelsim_kernel(p);
  for (int pass = 0; pass < 2; ++pass) {
    auto v0 = drain(*k, 0, 0), v1 = drain(*k, 0, 1);
    REQUIRE(v0.size() == 3);
    REQUIRE(v1.size() == 3);
    CHECK(v0[1].op == WarpOp::Compute);
    CHECK(v0[2].op == WarpOp::Exit);
    CHECK(v1[0].op == WarpOp::Compute);
    CHECK(v1[1].n_dst == 1);
    CHECK(v1[1].dst[0] == 1);
    CHECK(v1[2].op == WarpOp::Exit);
  }
  std::string bad = "#BEGIN_TB\nthread block = 0,0,0\n";
  bad += "warp = 0\ninsts = 2\n" + mov + "\n" + ex + "\n";
  bad += "warp = 1\ninsts = 2\n" + mov + " 5 6\n" + ex + "\n#END_TB\n";
  auto q = write("repeat_bad.traceg", header("(1,1,1)", "(64,1,1)") + bad);
  CHECK(error_of(q) == q + ":24: unexpected token '6' at the end of the line");
  std::string ctl = "#BEGIN_TB\nthread block = 0,0,0\n";
  ctl += "warp = 0\ninsts = 2\n" + mov + "\n" + ex + "\n";
  ctl += "warp = 1\ninsts = 2\n" + mov + "\n" + ex + std::string("\x01", 1) + "\n#END_TB\n";
  auto r = write("repeat_ctl.traceg", header("(1,1,1)", "(64,1,1)") + ctl);
  CHECK_THAT(error_of(r), Catch::Matchers::StartsWith(r + ":25: binary data (byte 0x01"));
}

TEST_CASE("trace: a warp longer than the read buffers streams every line as parsed", "[trace]") {
  // Lines that straddle the stream's reads (2 KiB) and the index's reads, and one longer than a
  // stream's buffer, must come out whole.
  std::vector<std::string> lines;
  for (int i = 0; i < 700; ++i) {
    char buf[200];
    if (i % 3 == 0)
      std::snprintf(buf, sizeof buf, "%04x ffffffff 1 R4 LDG.E 1 R2 4 1 0x%016x %d", i * 16,
                    0x10000 + i * 0x80, 4 + i % 5);
    else
      std::snprintf(buf, sizeof buf, "%04x %08x 1 R%d IADD3 2 R1 R2 0", i * 16,
                    0xffffffffu >> (i % 7), i % 9);
    lines.push_back(buf);
    if (i == 350)  // a line longer than a stream's read buffer (read whole by the slow path)
      lines.push_back("15e8 ffffffff 1 R4 LDG.E 1 R2 4 1 0x20000 4" + std::string(9000, ' '));
  }
  lines.push_back("2bc0 ffffffff 0 EXIT 0 0");
  auto p = write("long.traceg", header() + one_warp(lines));
  auto k = open_accelsim_kernel(p);
  for (int pass = 0; pass < 2; ++pass) {
    auto v = drain(*k, 0, 0);
    REQUIRE(v.size() == lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const WarpInst w = parse(lines[i], i + 1 == lines.size());
      INFO(lines[i]);
      CHECK(v[i].op == w.op);
      CHECK(v[i].pc == w.pc);
      CHECK(v[i].active_mask == w.active_mask);
      CHECK(v[i].latency == w.latency);
      CHECK(v[i].size == w.size);
      CHECK(v[i].data_structure == w.data_structure);
      CHECK(same_lanes(v[i], w));
      CHECK(v[i].n_dst == w.n_dst);
      CHECK(v[i].n_src == w.n_src);
      CHECK(std::equal(v[i].dst.begin(), v[i].dst.begin() + v[i].n_dst, w.dst.begin()));
      CHECK(std::equal(v[i].src.begin(), v[i].src.begin() + v[i].n_src, w.src.begin()));
      CHECK(v[i].wait_all_loads == w.wait_all_loads);
    }
  }
}

TEST_CASE("trace: lines read in place in the read buffer stream as parsed, CRLF too", "[trace]") {
  // Lines whose operands before the addresses were seen before are read where they lie in the
  // read buffer (their end found by the same pass): with CR before the newlines, separators at
  // the end, and in .xz thread blocks, every warp must stream what parsing each line gives.
  for (const std::string& eol : {std::string("\n"), std::string(" \r\n"), std::string("\r\n")}) {
    std::string tb;
    std::vector<std::vector<std::string>> want(4);
    for (int c = 0; c < 2; ++c) {
      tb += "#BEGIN_TB" + eol + "thread block = " + std::to_string(c) + ",0,0" + eol;
      for (int w = 0; w < 2; ++w) {
        // (an empty line before a warp's header, as NVBit writes: taken whole with it for "\n")
        tb += eol + "warp = " + std::to_string(w) + eol + "insts = 9" + eol;
        auto& lines = want[c * 2 + w];
        for (int i = 0; i < 4; ++i) {
          char buf[200];
          std::snprintf(buf, sizeof buf, "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x%016x 4",
                        0x10000 + c * 0x1000 + w * 0x100 + i * 0x10000);
          lines.push_back(buf);
          std::snprintf(buf, sizeof buf,
                        "0010 0000f00f 1 R5 LDG.E.64 1 R2 8 0 0x%x 0x%x 3 0x4 5 0x6 0X7 0x8",
                        0x20000 + c, 0x30000 + w);
          lines.push_back(buf);
        }
        lines.push_back("0020 ffffffff 0 EXIT 0 0");
        for (const auto& l : lines) tb += l + eol;
      }
      tb += "#END_TB" + eol;
    }
    std::string hdr = header("(2,1,1)", "(64,1,1)");
    std::string h2;
    for (char ch : hdr) h2 += ch == '\n' ? eol : std::string(1, ch);
    auto p = write("inplace.traceg", h2 + tb);
    std::vector<std::unique_ptr<Kernel>> ks;
    ks.push_back(open_accelsim_kernel(p));
    if (std::system(("xz -kf " + p).c_str()) == 0) ks.push_back(open_accelsim_kernel(p + ".xz"));
    for (const auto& k : ks)
      for (int pass = 0; pass < 2; ++pass)
        for (int cw = 0; cw < 4; ++cw) {
          const auto v = drain(*k, cw / 2, cw % 2);
          REQUIRE(v.size() == want[cw].size());
          for (std::size_t i = 0; i < v.size(); ++i) {
            const WarpInst x = parse(want[cw][i], i + 1 == v.size());
            INFO(want[cw][i]);
            CHECK(v[i].op == x.op);
            CHECK(v[i].pc == x.pc);
            CHECK(v[i].active_mask == x.active_mask);
            CHECK(v[i].size == x.size);
            CHECK(same_lanes(v[i], x));
          }
        }
  }
}

TEST_CASE("trace: streamed lines equal parsed ones in every field, whatever line came before",
          "[trace]") {
  // A streamed line read in place takes the fields its static part fixes as two copied blocks
  // (the line's kind deciding the rest), and its static part is looked for first where the
  // previous line's successor was last time: each kind of line, in orders that make that guess
  // right and wrong, must stream exactly what parse_trace_inst() gives.
  const std::vector<std::string> kinds = {
      "0000 ffffffff 1 R1 S2R 0 0",
      "0010 ffffffff 1 R2 FFMA 3 R1 R1 R1 0",
      "0020 0000ffff 1 R3 DADD 2 R1 R2 0",
      "0030 ffffffff 0 BAR.SYNC 0 0",
      "0040 ffffffff 0 EXIT 0 0",
      "0050 ffffffff 1 R4 LDG.E 1 R2 4 1 0x0000000000001000 4",
      "0060 ffffffff 1 R4 LDG.E 1 R2 4 1 0x0000000000002000 8",
      "0070 00ff00ff 0 STG.E 2 R4 R5 4 1 0x1080 4",
      "0080 0000000f 1 R8 LDG.E.128 1 R2 16 0 0x2000 0x2010 0x2020 0x2030",
      "0090 ffffffff 1 R6 LDS 1 R2 4 1 0x00007f0000000010 4",
      "00a0 0000000f 0 STS 2 R2 R6 4 2 0x20 4 4 -8",
      "00b0 ffffffff 0 ATOMG.E.ADD 2 R2 R4 4 1 0x0000000000001000 0",
      "00c0 ffffffff 1 R9 LDG.E 1 R2 0",
      "00d0 ffffffff 9 R1 R2 R3 R4 R5 R6 R7 R8 R9 IADD3 1 R2 0",
      "00e0 ffffffff 1 R7 LDL 1 R2 4 1 0x0000000000005000 4 0x10",
  };
  std::vector<DataStructure> data(2);
  data[0].base = 0x1000;
  data[0].bytes = 0x1000;
  data[1].base = 0x2000;
  data[1].bytes = 0x100;
  // Warp w streams the kinds rotated by w, reversed for odd w, with an EXIT (the last) at the
  // end: every kind follows several others.
  const std::uint32_t warps = 8;
  std::vector<std::vector<std::string>> want(warps);
  std::string tb = "#BEGIN_TB\nthread block = 0,0,0\n";
  for (std::uint32_t w = 0; w < warps; ++w) {
    for (std::size_t i = 0; i < kinds.size(); ++i)
      want[w].push_back(kinds[(w % 2 ? kinds.size() - 1 - i : i + w) % kinds.size()]);
    want[w].push_back("00f0 ffffffff 0 EXIT 0 0");
    tb += "warp = " + std::to_string(w) + "\ninsts = " + std::to_string(want[w].size()) + "\n";
    for (const auto& l : want[w]) tb += l + "\n";
  }
  auto p = write("fields.traceg",
                 header("(1,1,1)", "(" + std::to_string(32 * warps) + ",1,1)") + tb + "#END_TB\n");
  auto k = open_accelsim_kernel(p, data);
  TraceKernelInfo info;
  info.version = 4;
  info.shmem_base = 0x00007f0000000000;
  const std::vector<TraceMemcpy> regions = {{0x1000, 0x1000}, {0x2000, 0x100}};
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint32_t w = 0; w < warps; ++w) {
      const auto v = drain(*k, 0, w);
      REQUIRE(v.size() == want[w].size());
      for (std::size_t i = 0; i < v.size(); ++i) {
        INFO("warp " << w << ": " << want[w][i]);
        WarpInst x;
        x.count = 7;  // (every field is written)
        parse_trace_inst(want[w][i], info, i + 1 == v.size(), regions, "t:1", x);
        CHECK(v[i].op == x.op);
        CHECK(v[i].pc == x.pc);
        CHECK(v[i].active_mask == x.active_mask);
        CHECK(v[i].count == x.count);
        CHECK(v[i].latency == x.latency);
        CHECK(v[i].size == x.size);
        CHECK(v[i].data_structure == x.data_structure);
        CHECK(same_lanes(v[i], x));
        CHECK(v[i].n_dst == x.n_dst);
        CHECK(v[i].n_src == x.n_src);
        CHECK(v[i].dst == x.dst);
        CHECK(v[i].src == x.src);
        CHECK(v[i].wait_all_loads == x.wait_all_loads);
        // Linear only where the short path saw stride == size (the parser never says so).
        CHECK(v[i].linear ==
              (want[w][i].find(" 4 1 0x00000000000") != std::string::npos &&
               want[w][i].size() > 2 && want[w][i].compare(want[w][i].size() - 2, 2, " 4") == 0));
      }
    }
}

TEST_CASE("trace: full-warp base + stride lines read in place in every variant", "[trace]") {
  // The usual memory line (" 1 0x<16 digits> <stride>" at its end) has its own reader: its
  // variants, the same line at the end of the file, and bad strides must read or fail as parsing
  // each line does.
  const std::string ld = "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x00000000000a0000 ";
  std::vector<std::string> lines;
  for (const char* st : {"4", "-4", "+4", "0", "-0", "123456789012345678", "1234567890123456789",
                         "-9223372036854775808", "8 0x5", "8 -7", "8\t", "8 "})
    lines.push_back(ld + st);
  lines.push_back("0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x0000000000a0000 4");  // 15 digits
  lines.push_back("0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x0a0000 4");
  lines.push_back("0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0X00000000000A0000 4");
  lines.push_back("0000 ffffffff 1 R4 LDG.E 1 R2 4 1  0x00000000000a0000 4");
  lines.push_back(ld + "4");  // not a warp's first line: read by the short path
  lines.push_back("0010 ffffffff 0 EXIT 0 0");
  std::string tb;
  for (int w = 0; w < 2; ++w) {  // the second warp's lines have their static part remembered
    tb += "warp = " + std::to_string(w) + "\ninsts = " + std::to_string(lines.size()) + "\n";
    for (const auto& l : lines) tb += l + "\n";
  }
  auto p = write("stride.traceg", header("(1,1,1)", "(64,1,1)") +
                                      "#BEGIN_TB\nthread block = 0,0,0\n" + tb + "#END_TB\n");
  auto k = open_accelsim_kernel(p);
  for (int w = 0; w < 2; ++w) {
    const auto v = drain(*k, 0, w);
    REQUIRE(v.size() == lines.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      INFO(lines[i]);
      const WarpInst x = parse(lines[i], i + 1 == v.size());
      CHECK(v[i].op == x.op);
      CHECK(same_lanes(v[i], x));
      // Flagged linear (the SM skips its lane check) only if every lane is at base + l * size.
      bool lanes_linear = v[i].active_mask == 0xffffffffu;
      for (unsigned l = 0; l < 32; ++l)
        lanes_linear = lanes_linear && v[i].addr[l] == v[i].addr[0] + Addr{l} * v[i].size;
      CHECK((!v[i].linear || lanes_linear));
    }
  }
  for (int w = 0; w < 2; ++w) {
    CHECK(drain(*k, 0, w)[lines.size() - 2].linear);  // stride 4 by the short path
    CHECK_FALSE(drain(*k, 0, w)[1].linear);           // stride -4
  }
  CHECK(drain(*k, 0, 1)[1].addr[1] == 0x9fffc);
  for (const char* bad : {"-", "+", "4x", "--4", "9223372036854775808"}) {
    const std::string t = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n" + ld + "4\n" +
                          "0010 ffffffff 0 EXIT 0 0\nwarp = 1\ninsts = 2\n" + ld + bad +
                          "\n0010 ffffffff 0 EXIT 0 0\n#END_TB\n";
    auto q = write("stride_bad.traceg", header("(1,1,1)", "(64,1,1)") + t);
    CHECK(error_of(q) == q + ":24: bad stride '" + bad + "'");
  }
}

TEST_CASE("trace: a linear line's lanes past the first are left to its consumers", "[trace]") {
  // The short path writes lane 0 of a linear instruction alone (WarpInst::linear): what the
  // stream leaves in the other lanes is an earlier line's; lane() and fill_lanes() give the
  // right addresses, and the exporter writes the line as base + stride.
  std::string list = "0000 ffffffff 1 R4 LDG.E 1 R2 4 0";
  for (unsigned l = 0; l < 32; ++l) list += " 0x" + std::to_string(9000 - l);
  const std::vector<std::string> lines = {
      list, "0010 ffffffff 1 R5 LDG.E 1 R2 4 1 0x0000000000003000 4",
      "0020 ffffffff 1 R6 IADD3 1 R5 0", "0030 ffffffff 0 EXIT 0 0"};
  std::string tb = "#BEGIN_TB\nthread block = 0,0,0\n";
  for (int w = 0; w < 2; ++w) {
    tb += "warp = " + std::to_string(w) + "\ninsts = " + std::to_string(lines.size()) + "\n";
    for (const auto& l : lines) tb += l + "\n";
  }
  write("lin.traceg", header("(1,1,1)", "(64,1,1)") + tb + "#END_TB\n");
  auto w = load_accelsim_trace(write("lin.g", "MemcpyHtoD,0x3000,256\nlin.traceg\n"));
  const Kernel& k = *w->kernels()[0];
  for (std::uint32_t wi = 0; wi < 2; ++wi) {
    auto s = k.warp_stream(0, wi);
    WarpInst in;
    REQUIRE(s->next(in));
    REQUIRE(s->next(in));
    REQUIRE(in.linear);  // (both warps: the index pass remembered the static part)
    for (unsigned l = 0; l < 32; ++l) CHECK(in.lane(l) == 0x3000 + 4 * l);
    in.fill_lanes();
    for (unsigned l = 0; l < 32; ++l) CHECK(in.addr[l] == 0x3000 + 4 * l);
    CHECK(drain(k, 0, wi)[1].addr[31] == 0x3000 + 4 * 31);
  }
  const std::string dir = tdir() + "/lin_export";
  export_accelsim_trace(*w, dir);
  std::ifstream f(dir + "/kernel-1.traceg");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(text.find(" 1 0x0000000000003000 4\n") != std::string::npos);
  auto r = load_accelsim_trace(dir + "/kernelslist.g");
  for (std::uint32_t wi = 0; wi < 2; ++wi) {
    const auto a = drain(k, 0, wi), b = drain(*r->kernels()[0], 0, wi);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(same_lanes(b[i], a[i]));
  }
}

TEST_CASE("trace: a stream that finds its file shortened names the line it missed", "[trace]") {
  // A warp stream counts its lines only when an error needs the number: the lines read before,
  // an empty one among them included, must still give the missing line's number.
  const std::vector<std::string> lines = {"0000 ffffffff 1 R1 S2R 0 0", "",
                                          "0010 ffffffff 1 R2 IADD3 1 R1 0",
                                          "0020 ffffffff 0 EXIT 0 0"};
  std::string text = header() + one_warp(lines);  // "insts = 4" on line 21: 3 instructions
  text.replace(text.find("insts = 4"), 9, "insts = 3");
  const std::string p = write("shortened.traceg", text);
  auto k = open_accelsim_kernel(p);
  write("shortened.traceg", text.substr(0, text.find("0020 ffffffff")));  // EXIT (line 25) gone
  for (int round = 0; round < 2; ++round) {  // (the second with the static parts remembered)
    auto s = k->warp_stream(0, 0);
    WarpInst in;
    REQUIRE(s->next(in));
    REQUIRE(s->next(in));
    CHECK_THROWS_WITH(s->next(in), p + ":25: unexpected end of file (file changed since it was "
                                       "loaded?)");
  }
}

TEST_CASE("trace: structural errors carry file and line", "[trace]") {
  const std::string h = header();  // 15 lines: #BEGIN_TB is line 16
  const std::string ex = "0000 ffffffff 0 EXIT 0 0";
  SECTION("missing header") {
    auto p = write("nohdr.traceg", "-kernel name = k\n-grid dim = (1,1,1)\n" + one_warp({ex}));
    CHECK(error_of(p) == p + ":3: missing header '-block dim'");
  }
  SECTION("unsupported version") {
    auto p = write("v2.traceg", header("(1,1,1)", "(32,1,1)", 2) + one_warp({ex}));
    CHECK(error_of(p) == p + ":12: unsupported accelsim tracer version 2 (supported: 3, 4, 5)");
  }
  SECTION("fewer instruction lines than insts") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n" + ex + "\n#END_TB\n";
    auto p = write("count.traceg", h + tb);
    CHECK(error_of(p) ==
          p + ":21: warp 0 of thread block (0,0,0): insts = 3 but only 1 instruction lines");
  }
  SECTION("truncated file") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n" + ex + "\n";
    auto p = write("trunc.traceg", h + tb);
    CHECK(error_of(p) == p + ":20: truncated: warp 0 of thread block (0,0,0) has insts = 3 but "
                             "the file ends after 1 instruction lines");
  }
  SECTION("missing #END_TB") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ex + "\n";
    auto p = write("noend.traceg", h + tb);
    CHECK(error_of(p) == p + ":20: truncated: thread block (0,0,0) has no #END_TB");
  }
  SECTION("bad hex in an instruction") {
    auto p = write("hex.traceg", h + one_warp({"0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0xg0 4", ex}));
    CHECK(error_of(p) == p + ":22: bad hex address '0xg0'");
  }
  SECTION("TB outside the grid") {
    auto p = write("grid.traceg", h + one_warp({ex}, "1,0,0"));
    CHECK(error_of(p) == p + ":18: thread block (1,0,0) is outside grid dim (1,1,1)");
  }
  SECTION("missing TB") {
    auto p = write("few.traceg", header("(2,1,1)") + one_warp({ex}));
    CHECK(error_of(p) == p + ":24: 1 thread blocks, grid dim (2,1,1) needs 2 (thread block "
                             "(1,0,0) is missing)");
  }
  SECTION("duplicate TB") {
    auto p = write("dup.traceg", header("(2,1,1)") + one_warp({ex}) + one_warp({ex}));
    CHECK(error_of(p) == p + ":27: thread block (0,0,0) appears twice (first at line 18)");
  }
  SECTION("too few warps for the block dim") {
    auto p = write("warps.traceg", header("(1,1,1)", "(64,1,1)") + one_warp({ex}));
    CHECK(error_of(p) == p + ":24: thread block (0,0,0) has 1 warps, block dim (64,1,1) needs 2");
  }
  SECTION("warp outside the block") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 1\n" + ex + "\n#END_TB\n";
    auto p = write("warp1.traceg", h + tb);
    CHECK(error_of(p) == p + ":18: warp 1 is outside block dim (32,1,1) (1 warps)");
  }
  SECTION("garbage between blocks") {
    auto p = write("junk.traceg", h + one_warp({ex}) + "hello\n");
    CHECK(error_of(p) == p + ":25: expected #BEGIN_TB, got 'hello'");
  }
  SECTION("missing insts line") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n" + ex + "\n#END_TB\n";
    auto p = write("noinsts.traceg", h + tb);
    CHECK(error_of(p) == p + ":19: expected 'insts = N' after 'warp = 0', got '" + ex + "'");
  }
  // The usual "warp = W" / "insts = N" pair (after empty lines) is taken whole from the read
  // buffer: what it does not take is read line by line, with the same errors and line numbers.
  SECTION("warp headers taken whole keep the line numbers") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\n\n\nwarp = 0\ninsts = 2\n" + ex +
                     "\n0010 ffffffff 0 EXIT 0 0 7 8\n#END_TB\n";
    auto p = write("hdrline.traceg", h + tb);
    CHECK(error_of(p) == p + ":23: unexpected token '8' at the end of the line");
  }
  SECTION("a warp twice in a thread block") {
    std::string tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ex +
                     "\n\nwarp = 0\ninsts = 1\n" + ex + "\n#END_TB\n";
    auto p = write("warp2x.traceg", header("(1,1,1)", "(64,1,1)") + tb);
    CHECK(error_of(p) == p + ":22: warp 0 appears twice in thread block (0,0,0)");
  }
  SECTION("insts beyond 32 bits, and leading zeros") {
    std::string tb =
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4294967296\n" + ex + "\n#END_TB\n";
    auto p = write("insts33.traceg", h + tb);
    CHECK(error_of(p) ==
          p + ":19: expected 'insts = N' after 'warp = 0', got 'insts = 4294967296'");
    std::string ok = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0000000000\ninsts = 0000000001\n" +
                     ex + "\n#END_TB\n";
    auto q = write("insts0.traceg", h + ok);
    CHECK(drain(*open_accelsim_kernel(q), 0, 0).size() == 1);
  }
}

TEST_CASE("trace: kernelslist gives data structures and kernels", "[trace]") {
  write("kl1.traceg", header() + one_warp({"0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x2000 4",
                                           "0010 ffffffff 0 EXIT 0 0"}));
  auto p = write("kl.g", "MemcpyHtoD,0x1000,256\nMemcpyHtoD,0x0000000000002000,4096\nkl1.traceg\n");
  auto w = load_accelsim_trace(p);
  REQUIRE(w->kernels().size() == 1);
  const Kernel& k = *w->kernels()[0];
  REQUIRE(k.data().size() == 2);
  CHECK(k.data()[1].base == 0x2000);
  CHECK(k.data()[1].bytes == 4096);
  CHECK(drain(k, 0, 0)[0].data_structure == 1);
  auto bad = write("klbad.g", "MemcpyHtoD,0x1000\nkl1.traceg\n");
  try {
    load_accelsim_trace(bad);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          bad + ":1: expected 'MemcpyHtoD,0xADDRESS,BYTES', got 'MemcpyHtoD,0x1000'");
  }
  auto missing = write("klmiss.g", "nothere.traceg\n");
  CHECK_THROWS_WITH(load_accelsim_trace(missing),
                    Catch::Contains(missing + ":1: cannot open kernel trace"));
}

TEST_CASE("trace: built-in workloads survive a write and read back", "[trace]") {
  for (const char* name : {"vecadd", "matmul", "histogram"}) {
    WorkloadArgs a;
    if (std::string(name) == "vecadd") a["n"] = "1000";
    if (std::string(name) == "matmul") a["n"] = "32";
    if (std::string(name) == "histogram") {
      a["n"] = "4096";
      a["ctas"] = "4";
    }
    auto w = make_workload(name, a);
    const std::string dir = tdir() + "/rt_" + name;
    export_accelsim_trace(*w, dir);
    auto r = load_accelsim_trace(dir + "/kernelslist.g");
    REQUIRE(r->kernels().size() == w->kernels().size());
    for (std::size_t ki = 0; ki < w->kernels().size(); ++ki) {
      const Kernel& a0 = *w->kernels()[ki];
      const Kernel& b0 = *r->kernels()[ki];
      CHECK(a0.name() == b0.name());
      CHECK(a0.num_ctas() == b0.num_ctas());
      CHECK(a0.regs_per_thread() == b0.regs_per_thread());
      CHECK(a0.shared_mem_bytes() == b0.shared_mem_bytes());
      for (std::uint32_t c = 0; c < a0.num_ctas(); ++c)
        for (std::uint32_t wi = 0; wi < a0.warps_per_cta(); ++wi) {
          auto x = drain(a0, c, wi);
          auto y = drain(b0, c, wi);
          std::size_t j = 0;
          bool same = true;
          for (const WarpInst& in : x) {
            for (std::uint32_t rep = 0; rep < in.warp_insts(); ++rep, ++j) {
              if (j >= y.size()) {
                same = false;
                break;
              }
              const WarpInst& o = y[j];
              same = same && o.pc == in.pc && o.active_mask == in.active_mask;
              if (in.op == WarpOp::Compute) {
                same = same && o.op == WarpOp::Compute && o.count == 1;
                const std::uint16_t want =
                    rep + 1 < in.count ? 1 : std::max<std::uint16_t>(1, in.latency);
                same = same && o.latency == want;
              } else {
                same = same && o.op == in.op;
                if (in.op != WarpOp::Barrier && in.op != WarpOp::Exit)
                  same = same && o.size == in.size && o.addr == in.addr &&
                         (in.op == WarpOp::SharedLoad || in.op == WarpOp::SharedStore ||
                          o.data_structure == in.data_structure);
              }
            }
            if (in.op == WarpOp::Exit) break;
          }
          same = same && j == y.size();
          if (!same) FAIL_CHECK(name << " kernel " << ki << " cta " << c << " warp " << wi);
        }
    }
  }
}
