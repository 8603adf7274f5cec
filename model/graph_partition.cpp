#include "model/graph_partition.h"

#include <metis.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>

namespace locsim {

namespace {

// Vertex -> local index of the current induced subgraph; reset after each use so that many small
// subgraphs of a large graph (RB-TS) do not pay for clearing a full-size array each time.
class LocalIndex {
 public:
  LocalIndex(std::uint32_t n, const std::vector<std::uint32_t>& vertices) : vertices_(vertices) {
    if (map_.size() < n) map_.resize(n, kAbsent);
    for (std::uint32_t i = 0; i < vertices.size(); ++i) {
      if (vertices[i] >= n) throw std::invalid_argument("graph: vertex id out of range");
      map_[vertices[i]] = i;
    }
  }
  ~LocalIndex() {
    for (std::uint32_t v : vertices_) map_[v] = kAbsent;
  }
  LocalIndex(const LocalIndex&) = delete;
  LocalIndex& operator=(const LocalIndex&) = delete;
  static constexpr std::uint32_t kAbsent = ~0u;
  std::uint32_t operator[](std::uint32_t v) const { return map_[v]; }

 private:
  const std::vector<std::uint32_t>& vertices_;
  static thread_local std::vector<std::uint32_t> map_;
};
thread_local std::vector<std::uint32_t> LocalIndex::map_;

std::vector<std::uint32_t> all_vertices(const LocalityGraph& g) {
  std::vector<std::uint32_t> v(g.num_vertices);
  for (std::uint32_t i = 0; i < g.num_vertices; ++i) v[i] = i;
  return v;
}

// The induced subgraph in METIS's CSR arrays (idx_t), weights scaled so that their total fits
// idx_t with room for METIS's internal sums.
struct MetisGraph {
  std::vector<idx_t> xadj{0}, adjncy, adjwgt;
  bool has_edges() const { return !adjncy.empty(); }
};

MetisGraph metis_graph(const LocalityGraph& g, const std::vector<std::uint32_t>& vertices) {
  LocalIndex local(g.num_vertices, vertices);
  MetisGraph m;
  std::vector<std::uint64_t> w;
  std::uint64_t total = 0;
  for (std::uint32_t u : vertices) {
    for (std::uint64_t i = g.xadj[u]; i < g.xadj[u + 1]; ++i) {
      const std::uint32_t lv = local[g.adjncy[i]];
      if (lv == LocalIndex::kAbsent) continue;
      m.adjncy.push_back(static_cast<idx_t>(lv));
      w.push_back(g.adjwgt[i]);
      total += g.adjwgt[i];
    }
    m.xadj.push_back(static_cast<idx_t>(m.adjncy.size()));
  }
  const std::uint64_t limit = std::uint64_t{1} << 30;
  const std::uint64_t div = total > limit ? total / limit + 1 : 1;
  m.adjwgt.reserve(w.size());
  for (std::uint64_t x : w)
    m.adjwgt.push_back(static_cast<idx_t>(std::max<std::uint64_t>(1, x / div)));
  return m;
}

std::vector<idx_t> run_metis(MetisGraph& m, idx_t nparts, bool recursive, int seed) {
  idx_t nvtxs = static_cast<idx_t>(m.xadj.size() - 1), ncon = 1, objval = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(nvtxs), 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = seed;
  options[METIS_OPTION_NUMBERING] = 0;
  const int rc = recursive
                     ? METIS_PartGraphRecursive(&nvtxs, &ncon, m.xadj.data(), m.adjncy.data(),
                                                nullptr, nullptr, m.adjwgt.data(), &nparts, nullptr,
                                                nullptr, options, &objval, part.data())
                     : METIS_PartGraphKway(&nvtxs, &ncon, m.xadj.data(), m.adjncy.data(), nullptr,
                                           nullptr, m.adjwgt.data(), &nparts, nullptr, nullptr,
                                           options, &objval, part.data());
  if (rc != METIS_OK)
    throw std::runtime_error("METIS failed (code " + std::to_string(rc) + ") on a graph of " +
                             std::to_string(nvtxs) + " vertices, " + std::to_string(nparts) +
                             " parts");
  return part;
}

}  // namespace

std::vector<std::uint32_t> prim_order(const LocalityGraph& g,
                                      const std::vector<std::uint32_t>& vertices_in) {
  const std::vector<std::uint32_t> vertices = vertices_in.empty() ? all_vertices(g) : vertices_in;
  LocalIndex local(g.num_vertices, vertices);
  const std::size_t m = vertices.size();
  // Vertices in ascending id for the restart rule.
  std::vector<std::uint32_t> by_id(vertices);
  std::sort(by_id.begin(), by_id.end());
  std::vector<std::uint64_t> key(m, 0);
  std::vector<char> in_tree(m, 0);
  struct Cand {
    std::uint64_t w;
    std::uint32_t v;  // global id
  };
  // Heaviest key first, then lowest id.
  auto lower = [](const Cand& a, const Cand& b) { return a.w != b.w ? a.w < b.w : a.v > b.v; };
  std::priority_queue<Cand, std::vector<Cand>, decltype(lower)> heap(lower);
  std::vector<std::uint32_t> order;
  order.reserve(m);
  std::size_t restart = 0;
  while (order.size() < m) {
    std::uint32_t next = LocalIndex::kAbsent;
    while (!heap.empty()) {
      const Cand c = heap.top();
      heap.pop();
      const std::uint32_t lc = local[c.v];
      if (!in_tree[lc] && key[lc] == c.w) {
        next = c.v;
        break;
      }
    }
    if (next == LocalIndex::kAbsent) {  // no edge out of the tree: lowest unvisited id
      while (in_tree[local[by_id[restart]]]) ++restart;
      next = by_id[restart];
    }
    in_tree[local[next]] = 1;
    order.push_back(next);
    for (std::uint64_t i = g.xadj[next]; i < g.xadj[next + 1]; ++i) {
      const std::uint32_t lv = local[g.adjncy[i]];
      if (lv == LocalIndex::kAbsent || in_tree[lv] || g.adjwgt[i] <= key[lv]) continue;
      key[lv] = g.adjwgt[i];
      heap.push({g.adjwgt[i], g.adjncy[i]});
    }
  }
  return order;
}

std::vector<std::uint32_t> metis_kway(const LocalityGraph& g, std::uint32_t k, int seed) {
  const std::uint32_t n = g.num_vertices;
  std::vector<std::uint32_t> part(n, 0);
  if (k <= 1 || n == 0) return part;
  if (k >= n) {
    for (std::uint32_t v = 0; v < n; ++v) part[v] = v;
    return part;
  }
  MetisGraph m = metis_graph(g, all_vertices(g));
  if (!m.has_edges()) {
    for (std::uint32_t v = 0; v < n; ++v)
      part[v] = static_cast<std::uint32_t>(std::uint64_t{v} * k / n);
    return part;
  }
  const std::vector<idx_t> p = run_metis(m, static_cast<idx_t>(k), false, seed);
  for (std::uint32_t v = 0; v < n; ++v) part[v] = static_cast<std::uint32_t>(p[v]);
  return part;
}

std::pair<CtaGroup, CtaGroup> metis_bisect(const LocalityGraph& g, const CtaGroup& vertices,
                                           int seed) {
  std::pair<CtaGroup, CtaGroup> r;
  const std::size_t m = vertices.size();
  auto halves = [&] {
    r.first.assign(vertices.begin(), vertices.begin() + static_cast<std::ptrdiff_t>(m / 2));
    r.second.assign(vertices.begin() + static_cast<std::ptrdiff_t>(m / 2), vertices.end());
  };
  if (m <= 2) {
    halves();
    return r;
  }
  MetisGraph mg = metis_graph(g, vertices);
  if (!mg.has_edges()) {
    halves();
    return r;
  }
  const std::vector<idx_t> p = run_metis(mg, 2, true, seed);
  for (std::size_t i = 0; i < m; ++i) (p[i] == 0 ? r.first : r.second).push_back(vertices[i]);
  if (r.first.empty() || r.second.empty()) {  // METIS gave up on balance: split by id
    r = {};
    halves();
  }
  return r;
}

std::vector<CtaGroup> mst_groups(const LocalityGraph& g, std::uint32_t num_sms, std::uint32_t x) {
  // Interpretation: the paper's N groups of size x assume #TBs >= N*x. With fewer TBs, groups of
  // x would leave SMs without work (MST-TS has no stealing), so the first groups shrink to
  // floor(#TBs/N) and every SM receives one (docs/paver.md).
  const std::uint32_t n = std::max<std::uint32_t>(num_sms, 1);
  const std::uint32_t fair = std::max<std::uint32_t>(1, g.num_vertices / n);
  return mst_grouping(prim_order(g), num_sms, std::min(std::max<std::uint32_t>(x, 1), fair));
}

std::vector<CtaGroup> mst_grouping(const std::vector<std::uint32_t>& order, std::uint32_t num_sms,
                                   std::uint32_t x) {
  std::vector<CtaGroup> groups;
  std::size_t i = 0;
  for (std::uint32_t s = 0; s < num_sms && i < order.size(); ++s) {
    const std::size_t end = std::min(order.size(), i + std::max<std::uint32_t>(x, 1));
    groups.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(i),
                        order.begin() + static_cast<std::ptrdiff_t>(end));
    i = end;
  }
  for (; i < order.size(); ++i) groups.push_back({order[i]});
  return groups;
}

std::vector<CtaGroup> kway_groups(const LocalityGraph& g, std::uint32_t num_sms, int seed) {
  const std::vector<std::uint32_t> part = metis_kway(g, num_sms, seed);
  std::vector<CtaGroup> groups(std::max<std::uint32_t>(num_sms, 1));
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) groups[part[v]].push_back(v);
  for (CtaGroup& grp : groups)
    if (!grp.empty()) grp = prim_order(g, grp);
  return groups;
}

std::vector<CtaGroup> rb_groups(const LocalityGraph& g, std::uint32_t max_tb, bool leq, int seed) {
  std::vector<CtaGroup> leaves;
  if (g.num_vertices == 0) return leaves;
  auto is_leaf = [&](const CtaGroup& p) {
    return p.size() <= 1 || p.size() < max_tb || (leq && p.size() <= max_tb);
  };
  std::deque<CtaGroup> q;
  q.push_back(all_vertices(g));
  if (q.front().size() <= 1) return {q.front()};
  while (!q.empty()) {
    CtaGroup gi = std::move(q.front());
    q.pop_front();
    auto halves = metis_bisect(g, gi, seed);
    for (CtaGroup* h : {&halves.first, &halves.second}) {
      if (is_leaf(*h))
        leaves.push_back(std::move(*h));
      else
        q.push_back(std::move(*h));
    }
  }
  return leaves;
}

std::uint64_t captured_weight(const LocalityGraph& g, const std::vector<CtaGroup>& groups) {
  std::vector<std::uint32_t> gid(g.num_vertices, ~0u);
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (std::uint32_t v : groups[i]) gid.at(v) = static_cast<std::uint32_t>(i);
  std::uint64_t s = 0;
  for (std::uint32_t u = 0; u < g.num_vertices; ++u)
    for (std::uint64_t i = g.xadj[u]; i < g.xadj[u + 1]; ++i)
      if (g.adjncy[i] > u && gid[u] != ~0u && gid[u] == gid[g.adjncy[i]]) s += g.adjwgt[i];
  return s;
}

}  // namespace locsim
