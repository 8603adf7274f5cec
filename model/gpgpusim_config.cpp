#include "model/gpgpusim_config.h"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "model/params.h"

namespace locsim {

namespace {

struct Option {
  std::string name, value;
  std::uint32_t line;
};

// Options and their values in file order. A quoted value may span lines; its whitespace is
// dropped (GPGPU-Sim's DRAM timing string is written over two lines).
std::vector<Option> tokenize(const std::string& text, const std::string& file) {
  std::vector<std::pair<std::string, std::uint32_t>> words;
  std::uint32_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '"') {
      const std::uint32_t start = line;
      std::string w;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\n') ++line;
        if (!std::isspace(static_cast<unsigned char>(text[i]))) w += text[i];
      }
      if (i >= text.size())
        throw ConfigError(file + ":" + std::to_string(start) + ": unterminated quoted value");
      ++i;
      words.emplace_back(w, start);
    } else {
      std::string w;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) &&
             text[i] != '#')
        w += text[i++];
      words.emplace_back(w, line);
    }
  }
  std::vector<Option> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& w = words[i];
    if (w.first.size() < 2 || w.first[0] != '-')
      throw ConfigError(file + ":" + std::to_string(w.second) +
                        ": expected an option '-name', got '" + w.first + "'");
    if (i + 1 >= words.size() || (words[i + 1].first.size() > 1 && words[i + 1].first[0] == '-' &&
                                  !std::isdigit(static_cast<unsigned char>(words[i + 1].first[1]))))
      throw ConfigError(file + ":" + std::to_string(w.second) + ": option '" + w.first +
                        "' has no value");
    out.push_back({w.first, words[i + 1].first, w.second});
    ++i;
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) v.push_back(cur);
  if (!s.empty() && s.back() == sep) v.push_back("");
  return v;
}

std::optional<std::uint64_t> unsigned_of(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

class Importer {
 public:
  Importer(const std::string& file) : file_(file) {}

  GpgpuSimImport run(const std::vector<Option>& opts) {
    for (const Option& o : opts) one(o);
    finish();
    return std::move(out_);
  }

 private:
  [[noreturn]] void bad(const Option& o, const std::string& expected) const {
    throw ConfigError(file_ + ":" + std::to_string(o.line) + ": option '" + o.name +
                      "': bad value '" + o.value + "' (expected " + expected + ")");
  }
  std::uint64_t uint(const Option& o, const std::string& s, std::uint64_t min = 0) const {
    const auto v = unsigned_of(s);
    if (!v || *v < min)
      bad(o, min ? "an integer >= " + std::to_string(min) : "an unsigned integer");
    return *v;
  }
  void set(const Option& o, const std::string& key, const std::string& value) {
    out_.assignments.push_back({key, value, o.line});
  }
  void set(const Option& o, const std::string& key, std::uint64_t value) {
    set(o, key, std::to_string(value));
  }
  void ignore(const Option& o, const std::string& reason) {
    out_.ignored.push_back({o.name, o.value, reason, o.line});
  }

  // <sector?>:<nsets>:<bsize>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>:<set_index_fn>,
  // <mshr>:<N>:<merge>,<mq>[...]: geometry, MSHRs and miss queue; the policies stay locsim's.
  struct CacheSpec {
    bool sectored;
    std::uint64_t sets, line, ways, mshr, merge, mq;
    char index_fn;
  };
  CacheSpec cache(const Option& o) const {
    const std::string expect =
        "<N|S>:<sets>:<line>:<ways>,<policies>,<mshr>:<entries>:<merge>,<miss queue>";
    const auto groups = split(o.value, ',');
    if (groups.size() < 4) bad(o, expect);
    const auto g = split(groups[0], ':'), p = split(groups[1], ':'), m = split(groups[2], ':');
    if (g.size() != 4 || (g[0] != "N" && g[0] != "S") || p.size() < 5 || p[4].size() != 1 ||
        m.size() < 3)
      bad(o, expect);
    CacheSpec c;
    c.sectored = g[0] == "S";
    c.sets = uint(o, g[1], 1);
    c.line = uint(o, g[2], 1);
    c.ways = uint(o, g[3], 1);
    c.index_fn = p[4][0];
    c.mshr = uint(o, m[1], 1);
    c.merge = uint(o, m[2], 1);
    c.mq = uint(o, split(groups[3], ':')[0], 1);
    return c;
  }
  // The cache parameters under `prefix` (l1d. or l2.); `size` is the whole cache's.
  void set_cache(const Option& o, const std::string& prefix, const CacheSpec& c,
                 std::uint64_t size) {
    set(o, prefix + "size", size);
    set(o, prefix + "line", c.line);
    set(o, prefix + "ways", c.ways);
    set(o, prefix + "sector", c.sectored ? 32 : c.line);
    set(o, prefix + "indexing", index_of(c.index_fn));
    set(o, prefix + "mshr_entries", c.mshr);
    set(o, prefix + "mshr_max_merge", c.merge);
    set(o, prefix + "miss_queue", c.mq);
  }
  // GPGPU-Sim's set-index functions: L linear, H the Fermi hash (same function here), P/X
  // polynomial or XOR hashes, which map to locsim's XOR fold.
  static std::string index_of(char f) {
    return f == 'L' ? "linear" : f == 'H' ? "fermi-hash" : "xor";
  }

  void one(const Option& o) {
    const std::string& n = o.name;
    const std::string& v = o.value;
    if (n == "-gpgpu_n_clusters") {
      clusters_ = uint(o, v, 1);
      where_ = o;
    } else if (n == "-gpgpu_n_cores_per_cluster") {
      per_cluster_ = uint(o, v, 1);
      where_ = o;
    } else if (n == "-gpgpu_n_mem") {
      channels_ = uint(o, v, 1);
      set(o, "mem.channels", *channels_);
    } else if (n == "-gpgpu_n_sub_partition_per_mchannel") {
      subs_ = uint(o, v, 1);
      set(o, "mem.subpartitions_per_channel", *subs_);
    } else if (n == "-gpgpu_clock_domains") {
      const auto f = split(v, ':');
      if (f.size() != 4) bad(o, "<core>:<interconnect>:<L2>:<DRAM> in MHz");
      const char* keys[] = {"clock.core", "clock.noc", "clock.l2", "clock.dram"};
      for (int i = 0; i < 4; ++i) {
        std::size_t used = 0;
        double mhz = 0;
        try {
          mhz = std::stod(f[i], &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != f[i].size() || !(mhz > 0)) bad(o, "<core>:<interconnect>:<L2>:<DRAM> in MHz");
        mhz_[i] = mhz;
        std::ostringstream s;
        s << mhz << "MHz";
        set(o, keys[i], s.str());
      }
    } else if (n == "-gpgpu_shader_registers") {
      set(o, "sm.registers", uint(o, v, 1));
    } else if (n == "-gpgpu_shader_core_pipeline") {
      const auto f = split(v, ':');
      if (f.size() != 2) bad(o, "<threads>:<warp size>");
      const std::uint64_t threads = uint(o, f[0], 32), warp = uint(o, f[1], 1);
      if (warp != 32) bad(o, "a warp size of 32");
      set(o, "sm.max_threads", threads);
      set(o, "sm.max_warps", threads / 32);
    } else if (n == "-gpgpu_shader_cta") {
      set(o, "sm.max_ctas", uint(o, v, 1));
    } else if (n == "-gpgpu_num_sched_per_core") {
      set(o, "sm.schedulers", uint(o, v, 1));
    } else if (n == "-gpgpu_scheduler") {
      if (v == "gto" || v == "lrr")
        set(o, "sm.scheduler", v);
      else if (v.rfind("two_level_active", 0) == 0 || v == "old" || v == "warp_limiting" ||
               v.rfind("rrr", 0) == 0)
        ignore(o, "locsim models the gto and lrr warp schedulers (sm.scheduler)");
      else
        bad(o, "gto, lrr, two_level_active:..., old or warp_limiting");
    } else if (n == "-gpgpu_shmem_size") {
      set(o, "sm.shared_memory", uint(o, v));
    } else if (n == "-gpgpu_shmem_num_banks") {
      set(o, "sm.shared_banks", uint(o, v, 1));
    } else if (n == "-gpgpu_smem_latency") {
      set(o, "sm.shared_latency", uint(o, v, 1));
    } else if (n == "-gpgpu_l1_latency") {
      set(o, "l1d.hit_latency", uint(o, v, 1));
    } else if (n == "-gpgpu_gmem_skip_L1D") {
      const std::uint64_t s = uint(o, v);
      if (s > 1) bad(o, "0 or 1");
      set(o, "l1d.bypass", s ? "all" : "none");
    } else if (n == "-icnt_flit_size") {
      set(o, "noc.flit_bytes", uint(o, v, 1));
    } else if (n == "-gpgpu_dram_partition_queues") {
      // icnt-to-L2:L2-to-DRAM:DRAM-to-L2:L2-to-icnt. locsim models the first (the queue behind
      // the ROP stage); the L2's miss queue comes from -gpgpu_cache:dl2, the others are
      // unbounded here.
      const std::size_t colon = v.find(':');
      if (colon == std::string::npos || colon == 0)
        bad(o, "four queue sizes <icnt-L2>:<L2-DRAM>:<DRAM-L2>:<L2-icnt>");
      set(o, "l2.input_queue", uint(o, v.substr(0, colon), 1));
    } else if (n == "-gpgpu_cache:dl1") {
      const CacheSpec c = cache(o);
      set_cache(o, "l1d.", c, c.sets * c.line * c.ways);
    } else if (n == "-gpgpu_cache:dl2") {
      l2_ = cache(o);
      l2_where_ = o;
    } else if (n == "-gpgpu_dram_timing_opt") {
      // nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:...
      static const std::map<std::string, std::string> keys = {
          {"nbk", "mem.banks"}, {"CCD", "dram.tCCD"},  {"RRD", "dram.tRRD"}, {"RCD", "dram.tRCD"},
          {"RAS", "dram.tRAS"}, {"RP", "dram.tRP"},    {"RC", "dram.tRC"},   {"CL", "dram.tCL"},
          {"WL", "dram.tWL"},   {"CDLR", "dram.tWTR"}, {"WR", "dram.tWR"}};
      std::vector<std::string> unmapped;
      for (const auto& f : split(v, ':')) {
        const auto eq = f.find('=');
        if (eq == std::string::npos) bad(o, "name=value fields separated by ':'");
        const std::string k = f.substr(0, eq);
        const std::uint64_t x = uint(o, f.substr(eq + 1));
        auto it = keys.find(k);
        if (it != keys.end())
          set(o, it->second, x);
        else
          unmapped.push_back(f);
      }
      if (!unmapped.empty()) {
        std::string s;
        for (const auto& u : unmapped) s += (s.empty() ? "" : ":") + u;
        out_.ignored.push_back({o.name, s,
                                "bank groups (nbkgrp, CCDL, RTPL) are not modelled; every bank "
                                "is its own group",
                                o.line});
      }
    } else if (n == "-gpgpu_dram_buswidth") {
      buswidth_ = uint(o, v, 1);
      dram_where_ = o;
    } else if (n == "-gpgpu_dram_burst_length") {
      burst_ = uint(o, v, 1);
    } else if (n == "-gpgpu_n_mem_per_ctrlr") {
      per_ctrlr_ = uint(o, v, 1);
    } else if (n == "-dram_data_command_freq_ratio") {
      ratio_ = uint(o, v, 1);
    } else if (n == "-gpgpu_l2_rop_latency") {
      rop_ = uint(o, v);
      rop_where_ = o;
    } else if (n == "-dram_latency") {
      dram_latency_ = uint(o, v);
      dram_latency_where_ = o;
    } else if (n == "-gpgpu_frfcfs_dram_sched_queue_size") {
      // GPGPU-Sim's 0 means an unbounded scheduler queue; locsim's dram.queue is always bounded.
      const std::uint64_t q = uint(o, v);
      if (q)
        set(o, "dram.queue", q);
      else
        ignore(o, "0 (unbounded) has no locsim equivalent: dram.queue keeps the platform's size");
    } else if (n == "-dram_bnk_indexing_policy") {
      // 0 linear, 1 bank XOR low row bits (locsim's mem.bank_xor), 2 IPOLY.
      const std::uint64_t p = uint(o, v);
      if (p > 2) bad(o, "0, 1 or 2");
      if (p < 2)
        set(o, "mem.bank_xor", p ? "true" : "false");
      else
        ignore(o, "IPOLY bank hashing is not modelled (mem.bank_xor keeps the platform's)");
    } else if (n == "-dram_dual_bus_interface") {
      const std::uint64_t d = uint(o, v);
      if (d > 1) bad(o, "0 or 1");
      set(o, "dram.dual_command_bus", d ? "true" : "false");
    } else if (n == "-gpgpu_mem_addr_mapping") {
      address_mapping(o);
    } else {
      ignore(o, reason_for(n));
    }
  }

  // -gpgpu_mem_addr_mapping dramid@K;<64 characters>: the channel index is taken at bit K
  // (GPGPU-Sim inserts the channel bits there, or divides by a channel count that is not a power
  // of two), and the characters, most significant first, name the channel-local address bits: R
  // row, B bank, C and S column, 0 unused. locsim's layout is column and bank bits below the row,
  // so the string maps onto mem.interleave = 2^K, mem.bank_bits and mem.row_bytes when the row
  // bits are contiguous at the top and every bit below them is B, C or S. Other strings are
  // reported as ignored with the reason.
  void address_mapping(const Option& o) {
    const std::string& v = o.value;
    const std::string expect = "dramid@<bit>;<mask of R, B, C, S, D and 0 characters>";
    std::string mask = v;
    std::optional<std::uint64_t> chip_bit;
    if (v.rfind("dramid@", 0) == 0) {
      const std::size_t semi = v.find(';');
      if (semi == std::string::npos) bad(o, expect);
      chip_bit = unsigned_of(v.substr(7, semi - 7));
      if (!chip_bit) bad(o, expect);
      mask = v.substr(semi + 1);
    }
    std::string bits;  // bits[i] is the character of address bit i
    for (auto it = mask.rbegin(); it != mask.rend(); ++it) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(*it)));
      if (c == '.' || c == '|' || c == ' ') continue;
      if (c != 'R' && c != 'B' && c != 'C' && c != 'S' && c != 'D' && c != '0') bad(o, expect);
      bits += c;
    }
    if (bits.size() > 64) bad(o, expect);
    if (!chip_bit || bits.find('D') != std::string::npos)
      return ignore(o,
                    "explicit channel bits (D): locsim takes the channel at dramid@<bit>, "
                    "i.e. mem.interleave");
    if (*chip_bit < 7 || *chip_bit > 40)
      return ignore(o, "dramid@" + std::to_string(*chip_bit) +
                           ": locsim's mem.interleave is a power of two from 128 B");
    const std::size_t row = bits.find('R');
    if (row == std::string::npos) bad(o, expect);
    const std::size_t top = bits.find_last_of('R');
    std::vector<unsigned> banks;
    for (std::size_t i = 0; i < bits.size(); ++i) {
      if ((i >= row && i <= top && bits[i] != 'R') || (i > top && bits[i] != '0') ||
          (i < row && bits[i] == '0'))
        return ignore(o, "bit " + std::to_string(i) +
                             " breaks locsim's layout (column and bank bits below contiguous "
                             "row bits)");
      if (bits[i] == 'B') banks.push_back(static_cast<unsigned>(i));
    }
    if (banks.empty() || row < banks.size() + *chip_bit)
      return ignore(o, "no bank bits, or a row smaller than the 2^" + std::to_string(*chip_bit) +
                           " B channel chunk");
    if (banks.front() < *chip_bit)
      return ignore(o, "bank bit " + std::to_string(banks.front()) + " lies inside the 2^" +
                           std::to_string(*chip_bit) +
                           " B chunk a channel gets; locsim's bank bits start at "
                           "log2(mem.interleave)");
    std::string list;
    for (unsigned b : banks) list += (list.empty() ? "" : ",") + std::to_string(b);
    set(o, "mem.interleave", std::uint64_t{1} << *chip_bit);
    set(o, "mem.row_bytes", std::uint64_t{1} << (row - banks.size()));
    set(o, "mem.bank_bits", list);
  }

  static std::string reason_for(const std::string& n) {
    auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
    if (starts("-ptx") || starts("-gpgpu_ptx") || n == "-gpgpu_simd_model" ||
        starts("-gpgpu_compute_capability") || n == "-gpgpu_stack_size_limit" ||
        n == "-gpgpu_heap_size_limit" || starts("-gpgpu_runtime_"))
      return "PTX functional simulation: locsim runs traces and built-in workloads";
    if (starts("-power") || starts("-gpuwattch") || n == "-gpgpu_clock_gated_lanes")
      return "no power model";
    if (n == "-gpgpu_memlatency_stat" || n == "-gpgpu_runtime_stat" || starts("-visualizer") ||
        starts("-enable_ptx_file_line_stats") || starts("-trace") || n == "-gpgpu_perf_sim_memcpy")
      return "GPGPU-Sim statistics and tracing output";
    if (starts("-gpgpu_pipeline_widths") || starts("-gpgpu_num_") || starts("-gpgpu_operand") ||
        n == "-gpgpu_sub_core_model" || n == "-gpgpu_enable_specialized_operand_collector" ||
        n == "-gpgpu_reg_file_port_throughput" || n == "-gpgpu_max_insn_issue_per_warp" ||
        n == "-gpgpu_dual_issue_diff_exec_units" || starts("-gpgpu_tensor") ||
        n == "-gpgpu_occupancy_sm_number" || n == "-gpgpu_coalesce_arch" ||
        n == "-gpgpu_registers_per_block" || n == "-gpgpu_inst_fetch_throughput")
      return "execution pipeline: locsim's SM issues one instruction per scheduler per cycle with "
             "fixed ALU latencies";
    if (starts("-gpgpu_cache:il1") || starts("-gpgpu_tex_cache") || starts("-gpgpu_const_cache") ||
        n == "-gpgpu_perfect_inst_const_cache")
      return "instruction, texture and constant caches are not modelled";
    if (starts("-gpgpu_cache:dl1Pref") || starts("-gpgpu_shmem_size") ||
        n == "-gpgpu_shmem_sizeDefault" || n == "-gpgpu_adaptive_cache_config" ||
        n == "-gpgpu_shmem_option" || n == "-gpgpu_unified_l1d_size" ||
        n == "-gpgpu_shmem_per_block" || n == "-gpgpu_l1_cache_write_ratio")
      return "per-kernel L1/shared carve-outs: locsim uses one l1d.size and sm.shared_memory";
    if (n == "-network_mode" || starts("-inter_config_file") || starts("-icnt_"))
      return "interconnect: locsim's crossbar is set with noc.* (noc.flit_bytes from "
             "-icnt_flit_size)";
    if (n == "-gpgpu_mem_address_mask" || n == "-gpgpu_memory_partition_indexing" ||
        starts("-dram_bnk"))
      return "address mapping: locsim interleaves channels by mem.interleave and "
             "mem.channel_hash, not GPGPU-Sim's hash functions";
    return "not modelled by locsim";
  }

  void finish() {
    if (clusters_ || per_cluster_) {
      const std::uint64_t k = per_cluster_.value_or(1), c = clusters_.value_or(1);
      set(where_, "gpu.sms", c * k);
      set(where_, "gpu.sms_per_cluster", k);
      if (k > 1) set(where_, "gpu.topology", "clustered");
    }
    if (l2_) {
      // GPGPU-Sim gives one L2 sub-partition's geometry; locsim's l2.size is the whole L2.
      const CacheSpec& c = *l2_;
      const std::uint64_t parts = channels_.value_or(0) * subs_.value_or(0);
      if (!parts)
        throw ConfigError(file_ + ":" + std::to_string(l2_where_.line) +
                          ": option '-gpgpu_cache:dl2' needs -gpgpu_n_mem and "
                          "-gpgpu_n_sub_partition_per_mchannel (the L2 is given per "
                          "sub-partition)");
      set_cache(l2_where_, "l2.", c, c.sets * c.line * c.ways * parts);
    }
    if (buswidth_ && burst_) {
      // Bytes of one access: bus width x burst length x chips per controller; the burst lasts
      // burst length / data-to-command clock ratio DRAM command cycles.
      const std::uint64_t chips = per_ctrlr_.value_or(1), ratio = ratio_.value_or(1);
      set(dram_where_, "dram.atom_bytes", *buswidth_ * *burst_ * chips);
      set(dram_where_, "dram.burst_cycles", std::max<std::uint64_t>(1, *burst_ / ratio));
    }
    // GPGPU-Sim counts both delays in core cycles (gpu_sim_cycle); locsim's are in L2 and DRAM
    // cycles. Without -gpgpu_clock_domains the domains are taken as equal.
    auto convert = [&](std::uint64_t core_cycles, int domain) {
      const double r = mhz_[0] > 0 && mhz_[domain] > 0 ? mhz_[domain] / mhz_[0] : 1.0;
      return static_cast<std::uint64_t>(std::llround(static_cast<double>(core_cycles) * r));
    };
    if (rop_) set(rop_where_, "l2.rop_latency", convert(*rop_, 2));
    if (dram_latency_) {
      set(dram_latency_where_, "dram.controller_latency", convert(*dram_latency_, 3));
      set(dram_latency_where_, "dram.phy_latency", std::uint64_t{0});
    }
  }

  std::string file_;
  GpgpuSimImport out_;
  std::optional<std::uint64_t> clusters_, per_cluster_, channels_, subs_;
  std::optional<std::uint64_t> buswidth_, burst_, per_ctrlr_, ratio_;
  std::optional<CacheSpec> l2_;
  std::optional<std::uint64_t> rop_, dram_latency_;
  double mhz_[4] = {0, 0, 0, 0};  // -gpgpu_clock_domains: core, interconnect, L2, DRAM
  Option where_{}, l2_where_{}, dram_where_{}, rop_where_{}, dram_latency_where_{};
};

}  // namespace

GpgpuSimImport import_gpgpusim_config(const std::string& text, const std::string& file) {
  return Importer(file).run(tokenize(text, file));
}

}  // namespace locsim
