// Load dependencies of the built-in workloads and of exported traces (issue 15, scoreboard):
// every indirect load waits for the load that produces its address, and an export -> import round
// trip keeps each instruction's dependencies.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/scoreboard.h"
#include "stimuli/accelsim/accelsim_trace.h"
#include "stimuli/accelsim/trace_export.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli_test_helpers.h"

using namespace locsim;
using namespace locsim::test;

namespace {

// The SM's issue rule (model/scoreboard.h) without timing: for each instruction of a warp, the
// loads (indices into the stream) that must have returned before it issues, given that loads
// return in any order and as late as possible. A Compute block of k instructions is expanded into
// k entries (the first carries the block's dependencies), as the trace exporter writes it.
struct WarpDeps {
  std::vector<std::uint32_t> pc;
  std::vector<WarpOp> op;
  std::vector<std::set<std::size_t>> waits;  // per entry: loads it waits for (directly)
  // Per load entry: the first entry that cannot issue before it returns (SIZE_MAX: none).
  std::vector<std::size_t> complete_by;
  bool complete_before(std::size_t load, std::size_t entry) const {
    return complete_by[load] <= entry;
  }
};

WarpDeps dependencies(const std::vector<WarpInst>& v) {
  WarpDeps d;
  struct Out {
    std::size_t index;
    std::vector<std::uint8_t> dst;
  };
  std::vector<Out> outstanding;
  for (const WarpInst& in : v) {
    const std::uint32_t k = in.op == WarpOp::Compute ? std::max<std::uint32_t>(1, in.count) : 1;
    for (std::uint32_t rep = 0; rep < k; ++rep) {
      std::set<std::size_t> w;
      if (rep == 0) {
        for (std::size_t i = 0; i < outstanding.size();) {
          bool hit = in.wait_all_loads || in.op == WarpOp::Exit;
          for (std::uint8_t r : outstanding[i].dst) {
            for (unsigned s = 0; s < in.n_src; ++s) hit = hit || in.src[s] == r;
            for (unsigned s = 0; s < in.n_dst; ++s) hit = hit || in.dst[s] == r;
          }
          if (hit) {
            w.insert(outstanding[i].index);
            d.complete_by[outstanding[i].index] = d.pc.size();
            outstanding.erase(outstanding.begin() + static_cast<long>(i));
          } else {
            ++i;
          }
        }
      }
      const std::size_t me = d.pc.size();
      d.pc.push_back(in.pc);
      d.op.push_back(in.op);
      d.waits.push_back(w);
      d.complete_by.push_back(SIZE_MAX);
      if ((in.op == WarpOp::Load || in.op == WarpOp::Atomic) && in.active_mask) {
        Out o{me, {}};
        for (unsigned s = 0; s < in.n_dst; ++s)
          if (in.dst[s] != Scoreboard::kZeroRegister) o.dst.push_back(in.dst[s]);
        outstanding.push_back(o);
      }
    }
    if (in.op == WarpOp::Exit) break;
  }
  return d;
}

using InstPred = std::function<bool(const Kernel&, std::uint32_t pc, WarpOp op, const WarpInst&)>;

InstPred load_at(std::uint32_t pc) {
  return [pc](const Kernel&, std::uint32_t p, WarpOp op, const WarpInst&) {
    return p == pc && op == WarpOp::Load;
  };
}
InstPred load_of(const std::string& ds_name) {
  return [ds_name](const Kernel& k, std::uint32_t, WarpOp op, const WarpInst& in) {
    return op == WarpOp::Load && in.data_structure < k.data().size() &&
           k.data()[in.data_structure].name == ds_name;
  };
}

// An indirect access: every `consumer` load must find the latest preceding `producer` load of its
// warp complete when it issues.
struct Indirect {
  const char* what;
  InstPred producer, consumer;
};

struct Case {
  const char* workload;
  WorkloadArgs args;
  std::vector<Indirect> pairs;
};

// Checks every warp of every kernel of the workload; returns how many consumer loads it saw.
std::size_t check_indirect(const Case& c) {
  auto w = make_workload(c.workload, c.args);
  std::vector<std::size_t> seen(c.pairs.size(), 0);
  for (const auto& kp : w->kernels()) {
    const Kernel& k = *kp;
    for (std::uint32_t cta = 0; cta < k.num_ctas(); ++cta)
      for (std::uint32_t wi = 0; wi < k.warps_per_cta(); ++wi) {
        const std::vector<WarpInst> v = drain(k, cta, wi);
        const WarpDeps d = dependencies(v);
        // The WarpInst behind each expanded entry (compute blocks repeat theirs).
        std::vector<const WarpInst*> src;
        for (const WarpInst& in : v)
          for (std::uint32_t r = 0; r < in.warp_insts(); ++r) src.push_back(&in);
        for (std::size_t p = 0; p < c.pairs.size(); ++p) {
          const Indirect& ind = c.pairs[p];
          std::size_t last_producer = SIZE_MAX;
          for (std::size_t i = 0; i < d.pc.size(); ++i) {
            if (ind.consumer(k, d.pc[i], d.op[i], *src[i]) && src[i]->active_mask) {
              ++seen[p];
              if (last_producer != SIZE_MAX && !d.complete_before(last_producer, i))
                FAIL_CHECK(c.workload << " " << k.name() << " CTA " << cta << " warp " << wi << ": "
                                      << ind.what << " (pc 0x" << std::hex << d.pc[i]
                                      << ") may issue before its producer (pc 0x"
                                      << d.pc[last_producer] << ") returns");
            }
            if (ind.producer(k, d.pc[i], d.op[i], *src[i]) && src[i]->active_mask)
              last_producer = i;
          }
        }
      }
  }
  std::size_t total = 0;
  for (std::size_t p = 0; p < c.pairs.size(); ++p) {
    INFO(c.workload << ": " << c.pairs[p].what);
    CHECK(seen[p] > 0);  // the pair still exists (a renamed pc must not silence the check)
    total += seen[p];
  }
  return total;
}

std::string tdir() {
  static const std::string d = [] {
    std::string p = "/tmp/locsim_deps_ut_" + std::to_string(getpid());
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

}  // namespace

TEST_CASE("load dependencies: the builder's rule (loads free, consumers wait, barriers free)",
          "[stimuli][deps]") {
  WarpInst in;
  emit_load(in, 0, 1, 0, [](unsigned) { return Addr{0}; });
  CHECK_FALSE(in.wait_all_loads);
  emit_dependent_load(in, 0, 1, 0, [](unsigned) { return Addr{0}; });
  CHECK(in.wait_all_loads);
  emit_load(in, 0, 1, 0, [](unsigned) { return Addr{0}; });
  CHECK_FALSE(in.wait_all_loads);  // every field rewritten
  emit_compute(in, 0, 1, 1, 0);
  CHECK(in.wait_all_loads);
  emit_store(in, 0, 1, 0, [](unsigned) { return Addr{0}; });
  CHECK(in.wait_all_loads);
  emit_atomic(in, 0, 1, 0, [](unsigned) { return Addr{0}; });
  CHECK(in.wait_all_loads);
  emit_shared_load(in, 0, 1, [](unsigned) { return Addr{0}; });
  CHECK(in.wait_all_loads);
  emit_barrier(in, 0, 1);
  CHECK_FALSE(in.wait_all_loads);
  emit_exit(in, 0, 1);
  CHECK(in.wait_all_loads);
  CHECK(in.n_dst == 0);
  CHECK(in.n_src == 0);
}

// Each indirect access of the built-in workloads (a load whose address or predicate is a loaded
// value, with only loads in between): deleting one emit_dependent_load makes this test fail.
TEST_CASE("load dependencies: indirect loads of the built-in workloads wait for their producer",
          "[stimuli][deps]") {
  const std::vector<Case> cases = {
      {"bfs",
       {{"nodes", "2000"}, {"degree", "4"}},
       {{"g_graph_edges[i] (i from g_graph_nodes[tid].starting)", load_at(0x18), load_at(0x28)},
        {"g_graph_visited[id] (id = g_graph_edges[i])", load_at(0x28), load_at(0x30)},
        {"g_cost[tid] under if (!g_graph_visited[id])", load_at(0x30), load_at(0x38)}}},
      {"spmv",
       {{"rows", "500"}, {"nnz_per_row", "5"}},
       {{"indices[jj] (jj from ptr[row])", load_at(0x00), load_at(0x10)},
        {"x[indices[jj]]", load_at(0x10), load_at(0x20)}}},
      {"btree",
       {{"records", "2000"}, {"queries", "8"}, {"range_queries", "8"}},
       {{"findK knodes[currKnode].keys", load_at(0x08), load_at(0x10)},
        {"findK final knodes[currKnode].keys", load_at(0x80), load_at(0x88)},
        {"findK records[indices[thid]]", load_at(0xa0), load_at(0xa8)},
        {"findRangeK knodes[currKnode].keys", load_at(0x08), load_at(0x10)},
        {"findRangeK knodes[lastKnode].keys", load_at(0x50), load_at(0x58)},
        {"findRangeK final knodes[currKnode].keys", load_at(0xd0), load_at(0xd8)},
        {"findRangeK final knodes[lastKnode].keys", load_at(0x108), load_at(0x110)}}},
      {"lavamd",
       {{"boxes1d", "2"}},
       {{"rv[box[bx].offset]", load_at(0x00), load_at(0x08)},
        {"box[bx].nei[k] under k < box[bx].nn", load_at(0x30), load_at(0x38)},
        {"box[pointer].offset (pointer = nei[k].number)", load_at(0x38), load_at(0x40)},
        {"rv[box[pointer].offset]", load_at(0x40), load_at(0x48)}}},
      {"particlefilter",
       {{"particles", "600"}, {"frames", "2"}},
       {{"I[ind[...]]", load_at(0x0d0), load_at(0x0d8)}}},
      {"streamcluster",
       {{"num", "2048"}, {"invocations", "1"}},
       {{"center_table[p.assign]", load_at(0x50), load_at(0x58)},
        {"work_mem[center_table[...]]", load_at(0x58), load_at(0x60)}}},
      {"heartwall",
       {{"shrink", "10"}, {"frames", "11"}},
       {{"d_frame window at d_endoRow/d_endoCol", load_of("d_endoCol"), load_of("d_frame")},
        {"d_frame window at d_epiRow/d_epiCol", load_of("d_epiCol"), load_of("d_frame")}}},
  };
  for (const Case& c : cases) {
    INFO(c.workload);
    CHECK(check_indirect(c) > 0);
  }
}

TEST_CASE("load dependencies: the checker catches an undeclared indirect load", "[stimuli][deps]") {
  // Two loads, the second addressed by the first's value but emitted with emit_load: the warp
  // could issue it before the first returns, which is what the test above looks for.
  WarpInst a, b, c;
  emit_load(a, 0x00, 1, 0, [](unsigned) { return Addr{0x100}; });
  emit_load(b, 0x08, 1, 0, [](unsigned) { return Addr{0x200}; });
  emit_exit(c, 0x10, 1);
  WarpDeps d = dependencies({a, b, c});
  CHECK_FALSE(d.complete_before(0, 1));
  emit_dependent_load(b, 0x08, 1, 0, [](unsigned) { return Addr{0x200}; });
  d = dependencies({a, b, c});
  CHECK(d.complete_before(0, 1));
  CHECK(d.waits[1] == std::set<std::size_t>{0});
}

namespace {
// Calls f(kernel, cta, warp, a, b) for every warp of workload `w` and of the trace read back
// from `dir`, a and b being the two instruction streams' dependencies.
template <class F>
void for_each_warp_pair(const Workload& w, const std::string& dir, F&& f) {
  auto r = load_accelsim_trace(dir + "/kernelslist.g");
  REQUIRE(r->kernels().size() == w.kernels().size());
  for (std::size_t ki = 0; ki < w.kernels().size(); ++ki) {
    const Kernel& k0 = *w.kernels()[ki];
    const Kernel& k1 = *r->kernels()[ki];
    for (std::uint32_t c = 0; c < k0.num_ctas(); ++c)
      for (std::uint32_t wi = 0; wi < k0.warps_per_cta(); ++wi)
        f(ki, c, wi, dependencies(drain(k0, c, wi)), dependencies(drain(k1, c, wi)));
  }
}
}  // namespace

TEST_CASE("load dependencies: conv2d's loads are hoisted or each consumed before the next",
          "[stimuli][deps]") {
  // Warp 1 of CTA 0 runs the stencil body: nine loads and nine FMUL/FFMA.
  auto deps = [](const char* order) {
    auto w = make_workload("conv2d", {{"n", "64"}, {"loads", order}});
    return dependencies(drain(*w->kernels()[0], 0, 1));
  };
  const WarpDeps h = deps("hoisted"), i = deps("interleaved");
  REQUIRE(h.pc.size() == i.pc.size());  // the same instructions in another order
  std::size_t loads = 0;
  for (std::size_t e = 0; e < i.pc.size(); ++e) {
    if (i.op[e] != WarpOp::Load) continue;
    ++loads;
    // Interleaved: the next entry (its consumer) waits for this load and nothing else.
    REQUIRE(e + 1 < i.pc.size());
    CHECK(i.op[e + 1] == WarpOp::Compute);
    CHECK(i.waits[e + 1] == std::set<std::size_t>{e});
  }
  CHECK(loads == 9);
  // Hoisted: the first Compute entry waits for all nine loads.
  std::size_t first = 0;
  while (first < h.op.size() && h.op[first] != WarpOp::Compute) ++first;
  REQUIRE(first == 9);
  CHECK(h.waits[first].size() == 9);
  CHECK_THROWS_WITH(make_workload("conv2d", {{"loads", "sideways"}}),
                    "workload 'conv2d': parameter 'loads': bad value 'sideways' (must be hoisted "
                    "or interleaved)");
}

TEST_CASE("load dependencies: --max-sources 4 keeps every wait and writes at most 4 sources",
          "[stimuli][deps][trace]") {
  // conv2d: nine loads before one consumer, spread 4 + 4 + 1 over its Compute block (same
  // instruction count); dwt2d: shared stores waiting for six loads, which need extra IADD3 lines.
  const std::vector<std::pair<const char*, WorkloadArgs>> wls = {
      {"conv2d", {{"n", "64"}}},
      {"dwt2d", {{"width", "64"}, {"height", "64"}, {"components", "1"}, {"levels", "1"}}}};
  TraceExportOptions opt;
  opt.max_sources = 4;
  for (const auto& [name, args] : wls) {
    INFO(name);
    auto w = make_workload(name, args);
    const std::string dir = tdir() + "/max4_" + name;
    export_accelsim_trace(*w, dir, opt);
    // No line lists more than four sources.
    std::size_t lines = 0, longest = 0;
    for (std::size_t ki = 1; ki <= w->kernels().size(); ++ki) {
      std::ifstream f(dir + "/kernel-" + std::to_string(ki) + ".traceg");
      std::string line;
      while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string pc, mask, word;
        unsigned nd = 0, ns = 0;
        if (!(in >> pc >> mask >> nd) || pc.size() != 4) continue;
        for (unsigned r = 0; r < nd; ++r) in >> word;
        in >> word >> ns;  // opcode, source count
        longest = std::max<std::size_t>(longest, ns);
        ++lines;
      }
    }
    CHECK(lines > 0);
    CHECK(longest == 4);
    // Every memory instruction, barrier and exit issues only after the loads it waited for: in the
    // read-back stream (entries matched by PC and op, extra IADD3 lines skipped) each load
    // completes no later than before the same entry. (Inside a Compute block whose sources were
    // spread, a line waits only for the loads it lists.)
    std::size_t checked = 0, extra = 0;
    for_each_warp_pair(
        *w, dir,
        [&](std::size_t, std::uint32_t, std::uint32_t, const WarpDeps& a, const WarpDeps& b) {
          std::vector<std::size_t> map;  // original entry -> read-back entry
          std::size_t j = 0;
          for (std::size_t i = 0; i < a.pc.size(); ++i) {
            while (j < b.pc.size() && (b.pc[j] != a.pc[i] || b.op[j] != a.op[i])) {
              ++j;
              ++extra;
            }
            REQUIRE(j < b.pc.size());
            map.push_back(j++);
          }
          for (std::size_t e = 0; e < a.pc.size(); ++e)
            for (std::size_t l = 0; l < a.pc.size(); ++l)
              if (a.op[l] == WarpOp::Load && a.op[e] != WarpOp::Compute &&
                  a.complete_before(l, e)) {
                CHECK(b.complete_before(map[l], map[e]));
                ++checked;
              }
        });
    CHECK(checked > 0);
    if (std::string(name) == "dwt2d") CHECK(extra > 0);
  }
  std::filesystem::remove_all(tdir());
}

TEST_CASE("load dependencies: an exported trace reads back with the same dependencies",
          "[stimuli][deps][trace]") {
  // bfs and spmv have indirect loads, conv2d nine loads before one consumer (more sources than a
  // trace instruction keeps: the reader makes it wait for all), histogram atomics.
  const std::vector<std::pair<const char*, WorkloadArgs>> wls = {
      {"bfs", {{"nodes", "600"}, {"degree", "3"}}},
      {"spmv", {{"rows", "200"}, {"nnz_per_row", "4"}}},
      {"conv2d", {{"n", "64"}}},
      {"histogram", {{"n", "4096"}, {"ctas", "4"}}},
      {"lavamd", {{"boxes1d", "1"}}}};
  for (const auto& [name, args] : wls) {
    INFO(name);
    auto w = make_workload(name, args);
    const std::string dir = tdir() + "/" + name;
    export_accelsim_trace(*w, dir);
    const std::string label = name;  // a structured binding cannot be captured in C++17
    std::size_t waits = 0;
    for_each_warp_pair(*w, dir,
                       [&](std::size_t ki, std::uint32_t c, std::uint32_t wi, const WarpDeps& a,
                           const WarpDeps& b) {
                         REQUIRE(a.pc.size() == b.pc.size());
                         for (std::size_t i = 0; i < a.pc.size(); ++i) {
                           waits += a.waits[i].size();
                           if (a.waits[i] != b.waits[i])
                             FAIL_CHECK(label << " kernel " << ki << " CTA " << c << " warp " << wi
                                              << " entry " << i << " (pc 0x" << std::hex << a.pc[i]
                                              << "): dependencies differ after the round trip");
                         }
                       });
    CHECK(waits > 0);
  }
  std::filesystem::remove_all(tdir());
}
