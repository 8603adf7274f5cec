// Rodinia bfs (cuda/bfs/bfs.cu, kernel.cu, kernel2.cu): level-synchronous breadth-first search,
// one thread per node, blocks of MAX_THREADS_PER_BLOCK = 512 (one block of no_of_nodes threads for
// small graphs), tid = blockIdx.x*512 + threadIdx.x. Per level the host launches
//   Kernel : if (tid < n && g_graph_mask[tid]) { g_graph_mask[tid] = false;
//              for (i = g_graph_nodes[tid].starting; i < starting + no_of_edges; i++) {
//                id = g_graph_edges[i];
//                if (!g_graph_visited[id]) { g_cost[id] = g_cost[tid] + 1;
//                                            g_updating_graph_mask[id] = true; } } }
//   Kernel2: if (tid < n && g_updating_graph_mask[tid]) { g_graph_mask[tid] = true;
//              g_graph_visited[tid] = true; *g_over = true; g_updating_graph_mask[tid] = false; }
// until no node is updated (depth + 1 levels). The graph is generated on the host with a fixed
// seed and the BFS levels computed there, so each launch knows its frontier (mask), each
// frontier node's edges, and which neighbours are still unvisited: the data-dependent control flow
// is decided from host data, never from simulated loads.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo bfs_workload();

namespace {

constexpr std::uint32_t kMaxThreads = 512;  // MAX_THREADS_PER_BLOCK
constexpr std::uint32_t kUnreached = 0xffffffffu;
enum : std::uint16_t { kNodes, kEdges, kMask, kUpdating, kVisited, kCost, kOver };

struct Graph {
  std::vector<std::uint32_t> start, degree, edges, level;
  std::uint32_t depth = 0;  // deepest level
};

// Deterministic random graph: node degrees uniform in [1, 2*avg-1], targets uniform; BFS from 0.
std::shared_ptr<const Graph> make_graph(std::uint32_t n, std::uint32_t avg, std::uint32_t seed) {
  auto g = std::make_shared<Graph>();
  std::mt19937 rng(seed);  // mt19937's sequence is fixed by the standard
  g->start.resize(n);
  g->degree.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    g->start[v] = static_cast<std::uint32_t>(g->edges.size());
    g->degree[v] = 1 + static_cast<std::uint32_t>(rng() % (2 * avg - 1));
    for (std::uint32_t e = 0; e < g->degree[v]; ++e)
      g->edges.push_back(static_cast<std::uint32_t>(rng() % n));
  }
  g->level.assign(n, kUnreached);
  std::vector<std::uint32_t> frontier{0}, next;
  g->level[0] = 0;
  for (std::uint32_t k = 0; !frontier.empty(); ++k) {
    g->depth = k;
    next.clear();
    for (std::uint32_t v : frontier)
      for (std::uint32_t e = 0; e < g->degree[v]; ++e) {
        const std::uint32_t id = g->edges[g->start[v] + e];
        if (g->level[id] == kUnreached) {
          g->level[id] = k + 1;
          next.push_back(id);
        }
      }
    frontier.swap(next);
  }
  return g;
}

struct BfsParams {
  std::uint32_t n = 0;
  std::uint32_t k = 0;                      // the level this launch processes
  std::uint32_t max_threads = kMaxThreads;  // MAX_THREADS_PER_BLOCK of this build
  std::shared_ptr<const Graph> g;
  Addr nodes = 0, edges = 0, mask = 0, updating = 0, visited = 0, cost = 0, over = 0;
};

// ---------------------------------------------------------------------------- Kernel
enum : std::uint32_t {
  kPcTid = 0x00,
  kPcLdMask = 0x08,
  kPcStMask = 0x10,
  kPcLdStart = 0x18,
  kPcLdDeg = 0x20,
  kPcLdEdge = 0x28,
  kPcLdVisited = 0x30,
  kPcLdCost = 0x38,
  kPcInc = 0x40,
  kPcStCost = 0x48,
  kPcStUpd = 0x50,
  kPcLoop = 0x58,
  kPcExit = 0x60
};

class BfsStream final : public CoroutineStream {
 public:
  BfsStream(const WarpContext& w, const BfsParams& p) : w_(w), p_(p) {
    in_range_ = w.lanes_where([&](unsigned l) { return tid(l) < p.n; });
    frontier_ =
        w.lanes_where([&](unsigned l) { return tid(l) < p.n && p.g->level[tid(l)] == p.k; });
    for (unsigned l = 0; l < kLanesPerWarp; ++l)
      if ((frontier_ >> l) & 1u) max_deg_ = std::max(max_deg_, p.g->degree[tid(l)]);
  }

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcTid, w_.live_mask(), 3, kAluLatency));
    if (in_range_) {
      LOCSIM_CO_YIELD(emit_load(
          in, kPcLdMask, in_range_, kMask, [this](unsigned l) { return p_.mask + tid(l); }, 1));
    }
    if (frontier_) {
      LOCSIM_CO_YIELD(emit_store(
          in, kPcStMask, frontier_, kMask, [this](unsigned l) { return p_.mask + tid(l); }, 1));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdStart, frontier_, kNodes,
                                [this](unsigned l) { return p_.nodes + 8 * tid(l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdDeg, frontier_, kNodes,
                                [this](unsigned l) { return p_.nodes + 8 * tid(l) + 4; }));
      for (e_ = 0; e_ < max_deg_; ++e_) {
        active_ = w_.lanes_where(
            [this](unsigned l) { return ((frontier_ >> l) & 1u) && p_.g->degree[tid(l)] > e_; });
        LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdEdge, active_, kEdges,
                                            [this](unsigned l) { return p_.edges + 4 * edge(l); }));
        LOCSIM_CO_YIELD(emit_dependent_load(
            in, kPcLdVisited, active_, kVisited,
            [this](unsigned l) { return p_.visited + target(l); }, 1));
        write_ = w_.lanes_where([this](unsigned l) {
          return ((active_ >> l) & 1u) && p_.g->level[target(l)] == p_.k + 1;
        });
        if (write_) {
          LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdCost, write_, kCost,
                                              [this](unsigned l) { return p_.cost + 4 * tid(l); }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcInc, write_, 1, kAluLatency));
          LOCSIM_CO_YIELD(emit_store(in, kPcStCost, write_, kCost,
                                     [this](unsigned l) { return p_.cost + 4 * target(l); }));
          LOCSIM_CO_YIELD(emit_store(
              in, kPcStUpd, write_, kUpdating,
              [this](unsigned l) { return p_.updating + target(l); }, 1));
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcLoop, active_, 2, kAluLatency));  // i++, compare
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t tid(unsigned l) const {
    return std::uint64_t{w_.block_idx().x} * p_.max_threads + w_.thread_idx(l).x;
  }
  std::uint64_t edge(unsigned l) const { return p_.g->start[tid(l)] + e_; }
  std::uint64_t target(unsigned l) const { return p_.g->edges[edge(l)]; }

  WarpContext w_;
  BfsParams p_;
  std::uint32_t in_range_ = 0, frontier_ = 0, active_ = 0, write_ = 0;
  std::uint32_t max_deg_ = 0, e_ = 0;
};

// ---------------------------------------------------------------------------- Kernel2
enum : std::uint32_t {
  kPc2Tid = 0x00,
  kPc2LdUpd = 0x08,
  kPc2StMask = 0x10,
  kPc2StVisited = 0x18,
  kPc2StOver = 0x20,
  kPc2StUpd = 0x28,
  kPc2Exit = 0x30
};

class Bfs2Stream final : public CoroutineStream {
 public:
  Bfs2Stream(const WarpContext& w, const BfsParams& p) : w_(w), p_(p) {
    in_range_ = w.lanes_where([&](unsigned l) { return tid(l) < p.n; });
    upd_ = w.lanes_where([&](unsigned l) { return tid(l) < p.n && p.g->level[tid(l)] == p.k + 1; });
  }

  bool next(WarpInst& in) override {
    auto own = [this](Addr base) { return [this, base](unsigned l) { return base + tid(l); }; };
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPc2Tid, w_.live_mask(), 3, kAluLatency));
    if (in_range_) {
      LOCSIM_CO_YIELD(emit_load(in, kPc2LdUpd, in_range_, kUpdating, own(p_.updating), 1));
    }
    if (upd_) {
      LOCSIM_CO_YIELD(emit_store(in, kPc2StMask, upd_, kMask, own(p_.mask), 1));
      LOCSIM_CO_YIELD(emit_store(in, kPc2StVisited, upd_, kVisited, own(p_.visited), 1));
      LOCSIM_CO_YIELD(emit_store(
          in, kPc2StOver, upd_, kOver, [this](unsigned) { return p_.over; }, 1));
      LOCSIM_CO_YIELD(emit_store(in, kPc2StUpd, upd_, kUpdating, own(p_.updating), 1));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPc2Exit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t tid(unsigned l) const {
    return std::uint64_t{w_.block_idx().x} * p_.max_threads + w_.thread_idx(l).x;
  }

  WarpContext w_;
  BfsParams p_;
  std::uint32_t in_range_ = 0, upd_ = 0;
};

WorkloadParamDecls params() {
  return {{"nodes", {"16384", "graph nodes (one thread each)"}},
          {"degree", {"6", "average out-degree (degrees uniform in [1, 2*degree-1])"}},
          {"seed", {"1", "seed of the random graph"}},
          // PAVER's Table 2 counts 3907 TBs for BFS: a 1M-node graph with 256-thread blocks.
          {"threads", {"512", "MAX_THREADS_PER_BLOCK (threads per CTA; Rodinia: 512)"}}};
}

std::unique_ptr<Workload> make_bfs(const WorkloadArgs& args) {
  WorkloadArgReader r("bfs", params(), args);
  const std::uint32_t n = r.get_u32("nodes", {2, 1u << 22, 1, ""});
  const std::uint32_t avg = r.get_u32("degree", {1, 64, 1, ""});
  const std::uint32_t seed = r.get_u32("seed", {});
  const std::uint32_t max_threads =
      r.get_u32("threads", {32, 1024, 32, "whole warps, at most 1024 threads per CTA"});
  auto g = make_graph(n, avg, seed);
  BfsParams p;
  p.n = n;
  p.max_threads = max_threads;
  p.g = g;
  DeviceAllocator alloc;
  const std::uint64_t edge_bytes = std::uint64_t{g->edges.size()} * 4;
  p.nodes = alloc.alloc(std::uint64_t{n} * 8);
  p.edges = alloc.alloc(edge_bytes);
  p.mask = alloc.alloc(n);
  p.updating = alloc.alloc(n);
  p.visited = alloc.alloc(n);
  p.cost = alloc.alloc(std::uint64_t{n} * 4);
  p.over = alloc.alloc(1);
  const std::uint32_t blocks = (n + max_threads - 1) / max_threads;
  const std::uint32_t threads = n > max_threads ? max_threads : n;
  const std::uint32_t nb = blocks;
  // Neighbour state (visited, cost, updating mask) is read/written at data-dependent positions
  // that threads of different CTAs share: INTER-THREAD (COACCESSED, IRREGULAR). A node's record
  // and edge list are read once, by its own thread, on its level: NO-REUSE; so are the own-node
  // masks.
  const auto shared_irregular = inter_thread(SharingType::CoAccessed, AccessPattern::Irregular,
                                             {n, 1, 1}, {nb, 1, 1}, {0, 0, 0});
  auto data_for = [&](bool first) {
    return std::vector<DataStructure>{
        {"g_graph_nodes", p.nodes, std::uint64_t{n} * 8, 8, {no_reuse()}},
        {"g_graph_edges", p.edges, edge_bytes, 4, {no_reuse()}},
        {"g_graph_mask", p.mask, n, 1, {no_reuse()}},
        {"g_updating_graph_mask", p.updating, n, 1, {first ? shared_irregular : no_reuse()}},
        {"g_graph_visited", p.visited, n, 1, {first ? shared_irregular : no_reuse()}},
        {"g_cost", p.cost, std::uint64_t{n} * 4, 4, {first ? shared_irregular : no_reuse()}},
        // every updating thread writes the one flag: INTER-THREAD (COACCESSED, REGULAR)
        {"g_over",
         p.over,
         1,
         1,
         {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {1, 1, 1}, {nb, 1, 1},
                       {0, 0, 0})}}};
  };
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t k = 0; k <= g->depth; ++k) {
    p.k = k;
    KernelShape s1;
    s1.name = "Kernel";
    s1.grid = {blocks, 1, 1};
    s1.block = {threads, 1, 1};
    s1.regs_per_thread = 12;
    ks.push_back(make_grid_kernel<BfsStream>(std::move(s1), data_for(true), p));
    KernelShape s2;
    s2.name = "Kernel2";
    s2.grid = {blocks, 1, 1};
    s2.block = {threads, 1, 1};
    s2.regs_per_thread = 8;
    ks.push_back(make_grid_kernel<Bfs2Stream>(std::move(s2), data_for(false), p));
  }
  return std::make_unique<KernelListWorkload>("bfs",
                                              "Rodinia bfs, " + std::to_string(n) + " nodes, " +
                                                  std::to_string(g->edges.size()) + " edges, " +
                                                  std::to_string(g->depth + 1) + " levels",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo bfs_workload() {
  return {"bfs",
          "Rodinia",
          "breadth-first search, Kernel + Kernel2 per level on a seeded random graph",
          "nodes=16K, degree=6, seed=1",
          params(),
          make_bfs,
          // PAVER Table 2: 3907 TBs = ceil(1M nodes / 256 threads).
          {{"paver", {{"nodes", "1000000"}, {"threads", "256"}}}}};
}

}  // namespace locsim
