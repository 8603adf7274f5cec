#include "model/locality_graph.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <unordered_map>

#include "model/workload/stream_walk.h"

namespace locsim {

LocalityGraph LocalityGraph::from_edges(
    std::uint32_t n,
    const std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>>& edges) {
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> d;
  d.reserve(edges.size() * 2);
  for (const auto& [u, v, w] : edges) {
    if (u >= n || v >= n || u == v || w == 0)
      throw std::invalid_argument("LocalityGraph::from_edges: bad edge");
    d.emplace_back(u, v, w);
    d.emplace_back(v, u, w);
  }
  std::sort(d.begin(), d.end());
  LocalityGraph g;
  g.num_vertices = n;
  g.xadj.assign(n + 1, 0);
  for (std::size_t i = 0; i < d.size(); ++i) {
    const auto [u, v, w] = d[i];
    if (!g.adjncy.empty() && i > 0 && std::get<0>(d[i - 1]) == u && std::get<1>(d[i - 1]) == v) {
      g.adjwgt.back() += w;
      continue;
    }
    g.adjncy.push_back(v);
    g.adjwgt.push_back(w);
    ++g.xadj[u + 1];
  }
  for (std::uint32_t v = 0; v < n; ++v) g.xadj[v + 1] += g.xadj[v];
  return g;
}

std::uint64_t LocalityGraph::weight(std::uint32_t u, std::uint32_t v) const {
  const auto b = adjncy.begin() + static_cast<std::ptrdiff_t>(xadj.at(u));
  const auto e = adjncy.begin() + static_cast<std::ptrdiff_t>(xadj.at(u + 1));
  const auto it = std::lower_bound(b, e, v);
  return it != e && *it == v ? adjwgt[static_cast<std::size_t>(it - adjncy.begin())] : 0;
}

std::uint64_t LocalityGraph::total_weight() const {
  std::uint64_t s = 0;
  for (std::uint64_t w : adjwgt) s += w;
  return s / 2;
}

double LocalityGraph::sparsity_score() const {
  if (num_vertices == 0) return 1.0;
  const double n = num_vertices;
  return 1.0 - static_cast<double>(adjncy.size()) / (n * n);
}

std::size_t LocalityGraph::memory_bytes() const {
  return xadj.capacity() * sizeof(xadj[0]) + adjncy.capacity() * sizeof(adjncy[0]) +
         adjwgt.capacity() * sizeof(adjwgt[0]);
}

namespace {

struct ElementRead {
  std::uint64_t element;
  std::uint32_t cta;
  bool operator<(const ElementRead& o) const {
    return element != o.element ? element < o.element : cta < o.cta;
  }
};

// Distinct sets of CTAs that share an element, each with the number of elements it shares. Most
// consecutive elements have the same sharers (a row band, a halo), so a kernel has far fewer
// distinct sets than shared elements, and each set's pairs are visited once, not per element.
class SharerLists {
 public:
  void add(const ElementRead* b, const ElementRead* e) {
    const std::size_t m = static_cast<std::size_t>(e - b);
    if (last_ != kNone && same(last_, b, m)) {
      ++mult_[last_];
      return;
    }
    std::uint64_t h = 1469598103934665603ull;
    for (const ElementRead* p = b; p != e; ++p) h = (h ^ p->cta) * 1099511628211ull;
    for (;; ++h) {  // open addressing on the hash value
      auto it = index_.find(h);
      if (it == index_.end()) {
        const std::uint32_t id = static_cast<std::uint32_t>(mult_.size());
        index_.emplace(h, id);
        for (const ElementRead* p = b; p != e; ++p) data_.push_back(p->cta);
        off_.push_back(data_.size());
        mult_.push_back(1);
        last_ = id;
        return;
      }
      if (same(it->second, b, m)) {
        ++mult_[it->second];
        last_ = it->second;
        return;
      }
    }
  }
  std::size_t size() const { return mult_.size(); }
  const std::uint32_t* begin(std::size_t l) const { return data_.data() + off_[l]; }
  const std::uint32_t* end(std::size_t l) const { return data_.data() + off_[l + 1]; }
  std::uint64_t mult(std::size_t l) const { return mult_[l]; }
  std::size_t memory_bytes() const {
    return data_.capacity() * 4 + off_.capacity() * 8 + mult_.capacity() * 8 + index_.size() * 32;
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;
  bool same(std::uint32_t l, const ElementRead* b, std::size_t m) const {
    if (off_[l + 1] - off_[l] != m) return false;
    const std::uint32_t* d = data_.data() + off_[l];
    for (std::size_t i = 0; i < m; ++i)
      if (d[i] != b[i].cta) return false;
    return true;
  }
  std::vector<std::uint32_t> data_;
  std::vector<std::uint64_t> off_{0};
  std::vector<std::uint64_t> mult_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::uint32_t last_ = kNone;
};

unsigned log2_exact(std::uint32_t v, const char* what) {
  if (v == 0 || (v & (v - 1)) != 0 || v > 4096)
    throw std::invalid_argument(std::string(what) + " must be a power of two in [1, 4096], got " +
                                std::to_string(v));
  unsigned s = 0;
  while ((1u << s) != v) ++s;
  return s;
}

}  // namespace

LocalityGraphBuild build_locality_graph(const Kernel& k, const LocalityGraphOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const unsigned shift = log2_exact(opt.element_bytes, "locality graph element size");
  LocalityGraphBuild r;
  const std::uint32_t n = k.num_ctas();

  // 1. (element, CTA) for every distinct element each CTA reads.
  std::vector<ElementRead> reads;
  std::vector<std::uint64_t> mine;
  for (std::uint32_t c = 0; c < n; ++c) {
    mine.clear();
    for_each_cta_inst(k, c, [&](std::uint32_t, const WarpInst& in) {
      if (in.op != WarpOp::Load) return;
      for (unsigned l = 0; l < 32; ++l) {
        if (!((in.active_mask >> l) & 1u)) continue;
        const std::uint64_t first = in.addr[l] >> shift;
        const std::uint64_t last = (in.addr[l] + (in.size ? in.size : 1) - 1) >> shift;
        for (std::uint64_t e = first; e <= last; ++e) mine.push_back(e);
        r.read_refs += last - first + 1;
      }
    });
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    for (std::uint64_t e : mine) reads.push_back({e, c});
  }
  // 2. Inverted index: group by element; CTAs of a group ascend.
  std::sort(reads.begin(), reads.end());
  SharerLists lists;
  for (std::size_t i = 0; i < reads.size();) {
    std::size_t j = i + 1;
    while (j < reads.size() && reads[j].element == reads[i].element) ++j;
    ++r.read_elements;
    if (j - i >= 2) {
      ++r.shared_elements;
      if (opt.max_sharers && j - i > opt.max_sharers)
        ++r.capped_elements;
      else
        lists.add(&reads[i], &reads[j]);
    }
    i = j;
  }
  r.sharer_lists = lists.size();
  std::size_t peak = reads.capacity() * sizeof(ElementRead) + lists.memory_bytes();
  reads.clear();
  reads.shrink_to_fit();

  // 3. CTA -> lists containing it, then one row of the graph per CTA (a sparse A * A^T).
  std::vector<std::uint64_t> loff(n + 1, 0);
  for (std::size_t l = 0; l < lists.size(); ++l)
    for (const std::uint32_t* p = lists.begin(l); p != lists.end(l); ++p) ++loff[*p + 1];
  for (std::uint32_t v = 0; v < n; ++v) loff[v + 1] += loff[v];
  std::vector<std::uint32_t> of(loff[n]);
  {
    std::vector<std::uint64_t> fill(loff.begin(), loff.end() - 1);
    for (std::size_t l = 0; l < lists.size(); ++l)
      for (const std::uint32_t* p = lists.begin(l); p != lists.end(l); ++p)
        of[fill[*p]++] = static_cast<std::uint32_t>(l);
  }
  LocalityGraph& g = r.graph;
  g.num_vertices = n;
  g.xadj.assign(n + 1, 0);
  std::vector<std::uint64_t> acc(n, 0);
  std::vector<std::uint32_t> touched;
  for (std::uint32_t u = 0; u < n; ++u) {
    touched.clear();
    for (std::uint64_t i = loff[u]; i < loff[u + 1]; ++i) {
      const std::uint32_t l = of[i];
      const std::uint64_t w = lists.mult(l);
      for (const std::uint32_t* p = lists.begin(l); p != lists.end(l); ++p) {
        if (*p == u) continue;
        if (acc[*p] == 0) touched.push_back(*p);
        acc[*p] += w;
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::uint32_t v : touched) {
      g.adjncy.push_back(v);
      g.adjwgt.push_back(acc[v]);
      acc[v] = 0;
    }
    g.xadj[u + 1] = g.adjncy.size();
  }
  peak = std::max(peak, lists.memory_bytes() + loff.capacity() * 8 + of.capacity() * 4 +
                            acc.capacity() * 8 + g.memory_bytes());
  r.peak_bytes = peak;
  r.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// ---- Data-reference classes ----

const char* to_string(ReferenceClass c) {
  switch (c) {
    case ReferenceClass::Unshared:
      return "unshared";
    case ReferenceClass::IntraTb:
      return "intra-tb";
    case ReferenceClass::InterTb:
      return "inter-tb";
    case ReferenceClass::IntraAndInterTb:
      return "intra-and-inter-tb";
  }
  return "?";
}

std::uint64_t ReferenceClassCounts::total_accesses() const {
  return accesses[0] + accesses[1] + accesses[2] + accesses[3];
}

double ReferenceClassCounts::fraction(ReferenceClass c) const {
  const std::uint64_t t = total_accesses();
  return t ? static_cast<double>(accesses[static_cast<int>(c)]) / static_cast<double>(t) : 0.0;
}

std::string ReferenceClassCounts::locality_class() const {
  const std::uint64_t inter = accesses[2] + accesses[3];
  if (inter == 0) return "none";
  return 2 * inter >= total_accesses() ? "high" : "low";
}

ReferenceClassCounts classify_references(const Kernel& k, std::uint32_t block_bytes) {
  const unsigned shift = log2_exact(block_bytes, "reference-class block size");
  struct BlockUse {
    std::uint64_t block;
    std::uint32_t cta, warp, count;
    bool operator<(const BlockUse& o) const {
      if (block != o.block) return block < o.block;
      return cta != o.cta ? cta < o.cta : warp < o.warp;
    }
  };
  std::vector<BlockUse> uses;
  std::vector<std::uint64_t> warp_blocks, inst_blocks;
  for (std::uint32_t c = 0; c < k.num_ctas(); ++c) {
    for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w) {
      warp_blocks.clear();
      for_each_warp_inst(k, c, w, [&](const WarpInst& in) {
        if (in.op != WarpOp::Load) return;
        inst_blocks.clear();
        for (unsigned l = 0; l < 32; ++l) {
          if (!((in.active_mask >> l) & 1u)) continue;
          const std::uint64_t a = in.addr[l];
          for (std::uint64_t b = a >> shift; b <= (a + (in.size ? in.size : 1) - 1) >> shift; ++b)
            inst_blocks.push_back(b);
        }
        std::sort(inst_blocks.begin(), inst_blocks.end());
        inst_blocks.erase(std::unique(inst_blocks.begin(), inst_blocks.end()), inst_blocks.end());
        warp_blocks.insert(warp_blocks.end(), inst_blocks.begin(), inst_blocks.end());
      });
      std::sort(warp_blocks.begin(), warp_blocks.end());
      for (std::size_t i = 0; i < warp_blocks.size();) {
        std::size_t j = i + 1;
        while (j < warp_blocks.size() && warp_blocks[j] == warp_blocks[i]) ++j;
        uses.push_back({warp_blocks[i], c, w, static_cast<std::uint32_t>(j - i)});
        i = j;
      }
    }
  }
  std::sort(uses.begin(), uses.end());
  ReferenceClassCounts r;
  r.block_bytes = block_bytes;
  for (std::size_t i = 0; i < uses.size();) {
    std::size_t j = i;
    std::uint64_t acc = 0;
    std::uint32_t ctas = 0, max_warps = 0, warps = 0;
    for (; j < uses.size() && uses[j].block == uses[i].block; ++j) {
      acc += uses[j].count;
      if (j == i || uses[j].cta != uses[j - 1].cta) {
        ++ctas;
        warps = 0;
      }
      max_warps = std::max(max_warps, ++warps);
    }
    const ReferenceClass cls =
        ctas == 1 ? (max_warps == 1 ? ReferenceClass::Unshared : ReferenceClass::IntraTb)
                  : (max_warps == 1 ? ReferenceClass::InterTb : ReferenceClass::IntraAndInterTb);
    r.accesses[static_cast<int>(cls)] += acc;
    ++r.blocks[static_cast<int>(cls)];
    i = j;
  }
  return r;
}

}  // namespace locsim
