// Accel-Sim trace writer (see trace_export.h and docs/traces.md).
#include "stimuli/accelsim/trace_export.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "model/params.h"

namespace locsim {

namespace {

const char* width_suffix(std::uint8_t size) {
  switch (size) {
    case 1:
      return ".U8";
    case 2:
      return ".U16";
    case 8:
      return ".64";
    case 16:
      return ".128";
    default:
      return "";
  }
}

// Opcode whose latency class (classify_trace_opcode) matches a Compute latency.
const char* compute_opcode(std::uint16_t latency) {
  if (latency <= 1) return "IADD3";
  if (latency <= 4) return "FFMA";
  if (latency <= 8) return "DFMA";
  return "MUFU.EX2";
}

void append_addresses(const WarpInst& in, std::string& out) {
  char buf[64];
  const std::uint32_t m = in.active_mask;
  // Mode 1 (base + stride) when the active lanes form one contiguous run with a constant stride
  // that fits 32 bits (what Accel-Sim's own decompressor requires); otherwise mode 0.
  bool stride_ok = m != 0;
  std::int64_t stride = 0;
  if (stride_ok) {
    const unsigned lo = __builtin_ctz(m), hi = 31 - __builtin_clz(m);
    const std::uint64_t run = hi - lo + 1;
    stride_ok = __builtin_popcount(m) == static_cast<int>(run);
    if (stride_ok && run > 1) stride = static_cast<std::int64_t>(in.lane(lo + 1) - in.lane(lo));
    if (stride < INT32_MIN || stride > INT32_MAX) stride_ok = false;
    for (unsigned l = lo + 1; stride_ok && l <= hi; ++l)
      stride_ok = in.lane(l) - in.lane(l - 1) == static_cast<std::uint64_t>(stride);
    if (stride_ok) {
      std::snprintf(buf, sizeof buf, " 1 0x%016" PRIx64 " %" PRId64, in.lane(lo), stride);
      out += buf;
      return;
    }
  }
  out += " 0";
  for (unsigned l = 0; l < 32; ++l)
    if ((m >> l) & 1u) {
      std::snprintf(buf, sizeof buf, " 0x%016" PRIx64, in.lane(l));
      out += buf;
    }
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw ConfigError(path + ": cannot write");
  f << text;
  f.flush();
  if (!f) throw ConfigError(path + ": write failed");
}

}  // namespace

TraceRegisterState::TraceRegisterState() {
  clear();
}

void TraceRegisterState::clear() {
  // R8..R254 are free; R0..R7 hold the placeholder operands of register-less instructions (R2
  // address, R4/R5 data) and R255 is RZ.
  free_[0] = ~std::uint64_t{0xff};
  free_[1] = free_[2] = ~std::uint64_t{0};
  free_[3] = ~(std::uint64_t{1} << 63);
  pending_.clear();
  width_.clear();
}

std::uint8_t TraceRegisterState::allocate(std::uint8_t size) {
  const unsigned n = size > 4 ? size / 4u : 1u;  // aligned blocks, as the compiler allocates them
  for (unsigned r = 8; r + n <= 255; r += n) {
    bool ok = true;
    for (unsigned i = 0; i < n && ok; ++i) ok = (free_[(r + i) >> 6] >> ((r + i) & 63)) & 1u;
    if (!ok) continue;
    for (unsigned i = 0; i < n; ++i) free_[(r + i) >> 6] &= ~(std::uint64_t{1} << ((r + i) & 63));
    pending_.push_back(static_cast<std::uint8_t>(r));
    width_.push_back(static_cast<std::uint8_t>(n));
    return static_cast<std::uint8_t>(r);
  }
  // Some 240 loads without a consumer: never in the built-in workloads. Reusing a pending
  // register would lose that load's dependency.
  throw ConfigError("trace export: more than 240 loads of one warp without a consumer");
}

void TraceRegisterState::consume(std::vector<std::uint8_t>& srcs) {
  for (std::size_t k = 0; k < pending_.size(); ++k) {
    srcs.push_back(pending_[k]);
    for (unsigned i = 0; i < width_[k]; ++i) {
      const unsigned r = pending_[k] + i;
      free_[r >> 6] |= std::uint64_t{1} << (r & 63);
    }
  }
  pending_.clear();
  width_.clear();
}

std::uint32_t append_trace_lines(const WarpInst& in, TraceRegisterState& regs, std::string& out,
                                 const TraceExportOptions& opt) {
  char head[48];
  std::snprintf(head, sizeof head, "%04x %08x ", in.pc, in.active_mask);
  // Registers of this instruction: its own, or placeholders when it is a built-in instruction
  // (names none; loads and atomics get fresh destinations, wait_all_loads adds the pending ones).
  const bool global_dst = in.op == WarpOp::Load || in.op == WarpOp::Atomic;
  const bool builtin = !in.n_dst && !in.n_src && (in.wait_all_loads || global_dst);
  std::vector<std::uint8_t> dsts(in.dst.begin(), in.dst.begin() + in.n_dst);
  std::vector<std::uint8_t> srcs(in.src.begin(), in.src.begin() + in.n_src);
  if (in.op == WarpOp::Exit) {
    regs.clear();
  } else if (in.wait_all_loads && in.op != WarpOp::Barrier) {
    regs.consume(srcs);
  }
  if (global_dst && in.n_dst == 0) {
    dsts.push_back(regs.allocate(in.size));
  } else if (global_dst && in.size > 4 && in.n_dst == in.size / 4u) {
    // NVBit lists the first register of a vector load (the reader widens it again).
    bool consecutive = true;
    for (unsigned i = 1; i < in.n_dst; ++i) consecutive &= in.dst[i] == in.dst[0] + i;
    if (consecutive) dsts.resize(1);
  }
  if (builtin && (in.op == WarpOp::Compute || in.op == WarpOp::SharedLoad)) dsts.push_back(4);
  if (builtin && srcs.empty()) {
    switch (in.op) {
      case WarpOp::Compute:
        srcs = {4, 5};
        break;
      case WarpOp::Load:
      case WarpOp::SharedLoad:
        srcs = {2};
        break;
      case WarpOp::Store:
      case WarpOp::SharedStore:
        srcs = {2, 4};
        break;
      case WarpOp::Atomic:
        srcs = {2, 5};
        break;
      default:
        break;
    }
  }
  auto reg_list = [](const std::vector<std::uint8_t>& v) {
    std::string t = std::to_string(v.size());
    for (std::uint8_t r : v) t += " R" + std::to_string(r);
    return t;
  };
  // With a source limit: a Compute block's integer filler lines (all but the first, and the last
  // unless it is an integer step too) carry the sources beyond the first line's, `max` each; the
  // rest, and those of any other instruction beyond `max`, go on IADD3 lines without a
  // destination before it, so it still issues after every load it waits for.
  const std::size_t max = opt.max_sources;
  std::uint32_t extra = 0;
  std::vector<std::vector<std::uint8_t>> filler;  // sources of the Compute block's lines 1..
  if (max && srcs.size() > max) {
    // srcs[from, to) in pieces of at most `max`.
    auto pieces = [&](std::size_t from, std::size_t to) {
      std::vector<std::vector<std::uint8_t>> v;
      for (std::size_t i = from; i < to; i += max)
        v.emplace_back(srcs.begin() + static_cast<long>(i),
                       srcs.begin() + static_cast<long>(std::min(to, i + max)));
      return v;
    };
    std::size_t keep = max;  // sources the instruction's own lines carry
    if (in.op == WarpOp::Compute) {
      const std::uint32_t k = in.count ? in.count : 1;
      const std::uint32_t fillers = k > 1 ? k - 2 + (in.latency <= 1 ? 1u : 0u) : 0u;
      keep = std::min(srcs.size(), max * (1 + std::size_t{fillers}));
    }
    for (const auto& part : pieces(keep, srcs.size())) {
      out += head;
      out += "0 IADD3 " + reg_list(part) + " 0\n";
      ++extra;
    }
    filler = pieces(max, keep);
    srcs.resize(max);
  }
  auto mem = [&](const char* op) {
    out += head;
    out += reg_list(dsts);
    out += ' ';
    out += op;
    out += width_suffix(in.size);
    out += ' ';
    out += reg_list(srcs);
    out += ' ';
    out += std::to_string(in.size);
    append_addresses(in, out);
    out += '\n';
    return 1u + extra;
  };
  switch (in.op) {
    case WarpOp::Compute: {
      // The block's first line carries its dependencies; the others are plain integer steps.
      const std::uint32_t k = in.count ? in.count : 1;
      for (std::uint32_t i = 0; i < k; ++i) {
        out += head;
        out += i == 0 ? reg_list(dsts) : std::string("1 R4");
        out += ' ';
        out += i + 1 < k ? compute_opcode(1) : compute_opcode(in.latency);
        out += ' ';
        if (i == 0)
          out += reg_list(srcs);
        else if (i - 1 < filler.size())
          out += reg_list(filler[i - 1]);
        else
          out += "2 R4 R5";
        out += " 0\n";
      }
      return k + extra;
    }
    case WarpOp::Load:
      return mem("LDG.E");
    case WarpOp::Store:
      return mem("STG.E");
    case WarpOp::Atomic:
      return mem("ATOMG.E.ADD");
    case WarpOp::SharedLoad:
      return mem("LDS");
    case WarpOp::SharedStore:
      return mem("STS");
    case WarpOp::Barrier:
      out += head;
      out += reg_list(dsts) + " BAR.SYNC " + reg_list(srcs) + " 0\n";
      return 1 + extra;
    case WarpOp::Exit:
      out += head;
      out += reg_list(dsts) + " EXIT " + reg_list(srcs) + " 0\n";
      return 1 + extra;
  }
  return 0;
}

TraceExportSummary export_accelsim_trace(const Workload& w, const std::string& dir,
                                         const TraceExportOptions& opt) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ConfigError(dir + ": cannot create directory (" + ec.message() + ")");
  TraceExportSummary sum;
  std::string list;
  std::vector<std::pair<Addr, std::uint64_t>> regions;
  for (const auto& k : w.kernels())
    for (const DataStructure& d : k->data()) {
      std::pair<Addr, std::uint64_t> r{d.base, d.bytes};
      bool dup = false;
      for (const auto& o : regions) dup = dup || o == r;
      if (dup) continue;
      regions.push_back(r);
      char buf[80];
      std::snprintf(buf, sizeof buf, "MemcpyHtoD,0x%016" PRIx64 ",%" PRIu64 "\n", d.base, d.bytes);
      list += buf;
    }
  std::uint32_t id = 0;
  for (const auto& kp : w.kernels()) {
    const Kernel& k = *kp;
    ++id;
    const std::string file = "kernel-" + std::to_string(id) + ".traceg";
    list += file + "\n";
    const std::string path = dir + "/" + file;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw ConfigError(path + ": cannot write");
    const Dim3 g = k.grid(), b = k.block();
    std::string text;
    text += "-kernel name = " + k.name() + "\n";
    text += "-kernel id = " + std::to_string(id) + "\n";
    text += "-grid dim = (" + std::to_string(g.x) + "," + std::to_string(g.y) + "," +
            std::to_string(g.z) + ")\n";
    text += "-block dim = (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," +
            std::to_string(b.z) + ")\n";
    text += "-shmem = " + std::to_string(k.shared_mem_bytes()) + "\n";
    text += "-nregs = " + std::to_string(k.regs_per_thread()) + "\n";
    text += "-binary version = 70\n";
    text += "-cuda stream id = 0\n";
    text += "-shmem base_addr = 0x0000000000000000\n";
    text += "-local mem base_addr = 0x0000000000000000\n";
    text += "-nvbit version = locsim-export\n";
    text += "-accelsim tracer version = 4\n\n";
    text +=
        "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
        "[adrrescompress?] [mem_addresses] immediate\n\n";
    f << text;
    sum.bytes += text.size();
    const std::uint32_t wpc = k.warps_per_cta();
    std::string body;
    WarpInst in;
    for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta) {
      text = "#BEGIN_TB\n\nthread block = " + std::to_string(cta % g.x) + "," +
             std::to_string(cta / g.x % g.y) + "," + std::to_string(cta / g.x / g.y) + "\n\n";
      for (std::uint32_t wi = 0; wi < wpc; ++wi) {
        auto s = k.warp_stream(cta, wi);
        body.clear();
        std::uint64_t n = 0;
        TraceRegisterState regs;
        while (s->next(in)) {
          n += append_trace_lines(in, regs, body, opt);
          if (in.op == WarpOp::Exit) break;
        }
        text += "warp = " + std::to_string(wi) + "\ninsts = " + std::to_string(n) + "\n";
        text += body;
        text += "\n";
        sum.lines += n;
        ++sum.warps;
        if (text.size() > (1u << 20)) {
          f << text;
          sum.bytes += text.size();
          text.clear();
        }
      }
      text += "#END_TB\n\n";
      f << text;
      sum.bytes += text.size();
      ++sum.ctas;
    }
    f.flush();
    if (!f) throw ConfigError(path + ": write failed");
    ++sum.kernels;
  }
  write_file(dir + "/kernelslist.g", list);
  sum.bytes += list.size();
  return sum;
}

}  // namespace locsim
