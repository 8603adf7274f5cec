#include "model/ldesc_clustering.h"

#include <algorithm>
#include <stdexcept>

namespace locsim {

namespace {

std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}

std::uint32_t& dim(LDim3& d, int i) {
  return i == 0 ? d.x : i == 1 ? d.y : d.z;
}
std::uint32_t dim(const Dim3& d, int i) {
  return i == 0 ? d.x : i == 1 ? d.y : d.z;
}

bool is_one(const LDim3& d) {
  return d.x == 1 && d.y == 1 && d.z == 1;
}

// A C-Tile dimension of 0 (undeclared) or wider than the grid covers the whole grid dimension.
LDim3 clip(const Dim3& grid, LDim3 t) {
  for (int i = 0; i < 3; ++i) {
    std::uint32_t& v = dim(t, i);
    const std::uint32_t g = std::max<std::uint32_t>(1, dim(grid, i));
    if (v == 0 || v > g) v = g;
  }
  return t;
}

}  // namespace

LDim3 tile_counts(const Dim3& grid, const LDim3& tile) {
  const LDim3 t = clip(grid, tile);
  return {ceil_div(std::max<std::uint32_t>(1, grid.x), t.x),
          ceil_div(std::max<std::uint32_t>(1, grid.y), t.y),
          ceil_div(std::max<std::uint32_t>(1, grid.z), t.z)};
}

std::uint64_t tile_count(const Dim3& grid, const LDim3& tile) {
  const LDim3 c = tile_counts(grid, tile);
  return std::uint64_t{c.x} * c.y * c.z;
}

std::vector<const LocalityDescriptor*> inter_thread_descriptors(const Kernel& k) {
  std::vector<const LocalityDescriptor*> v;
  for (const DataStructure& ds : k.data())
    for (const LocalityDescriptor& d : ds.locality)
      if (d.type == LocalityType::InterThread) v.push_back(&d);
  std::stable_sort(v.begin(), v.end(),
                   [](const LocalityDescriptor* a, const LocalityDescriptor* b) {
                     return a->priority > b->priority;
                   });
  return v;
}

LDim3 cluster_shape(const Dim3& grid, const std::vector<LDim3>& ctiles, std::uint32_t sm_num) {
  if (ctiles.empty()) return {1, 1, 1};
  // Step 1 (Alg. 1 lines 3-7): enough C-Tiles per descriptor.
  std::vector<LDim3> ct;
  for (const LDim3& t : ctiles) {
    LDim3 c = clip(grid, t);
    while (tile_count(grid, c) < sm_num && !is_one(c)) {
      int largest = 0;
      for (int i = 1; i < 3; ++i)
        if (dim(c, i) > dim(c, largest)) largest = i;  // ties keep X, then Y (I-4)
      std::uint32_t& v = dim(c, largest);
      v = ceil_div(v, 2);
    }
    ct.push_back(c);
  }
  // Step 2 (lines 8-16): widen by lower-priority shapes while sm_num clusters remain.
  LDim3 cls = ct[0];
  for (std::size_t i = 1; i < ct.size(); ++i) {
    LDim3 m;
    for (int d = 0; d < 3; ++d)
      dim(m, d) = dim(cls, d) * std::max<std::uint32_t>(dim(ct[i], d) / dim(cls, d), 1);
    if (tile_count(grid, m) >= sm_num) cls = clip(grid, m);
  }
  return cls;
}

bool parse_cluster_shape(const std::string& s, LDim3& shape) {
  if (s == "auto") return false;
  LDim3 r;
  std::size_t pos = 0;
  for (int i = 0; i < 3 && pos <= s.size(); ++i) {
    const std::size_t end = std::min(s.find('x', pos), s.size());
    const std::string part = s.substr(pos, end - pos);
    if (part.empty() || part.size() > 6 ||
        part.find_first_not_of("0123456789") != std::string::npos || std::stoul(part) == 0)
      throw std::invalid_argument("CTA policy 'ldesc-cluster': shape '" + s +
                                  "' is not 'auto' or XxY[xZ] with positive whole numbers");
    dim(r, i) = static_cast<std::uint32_t>(std::stoul(part));
    pos = end + 1;
    if (end == s.size()) break;
  }
  if (pos < s.size())
    throw std::invalid_argument("CTA policy 'ldesc-cluster': shape '" + s +
                                "' has more than three dimensions");
  shape = r;
  return true;
}

LDescClusterPolicy::LDescClusterPolicy(const std::string& shape) {
  fixed_ = parse_cluster_shape(shape, fixed_shape_);
}

void LDescClusterPolicy::register_stats(StatRegistry& reg, const std::string& path) {
  kernels_clustered_ = &reg.counter(path, "ldesc", "clustered_kernels", "kernels",
                                    "kernels scheduled by CTA clusters (seed 000 Alg. 1)");
  clusters_formed_ = &reg.counter(path, "ldesc", "clusters", "clusters", "CTA clusters formed");
  spread_launches_ = &reg.counter(path, "ldesc", "spread_launches", "CTAs",
                                  "CTAs launched on an SM other than their cluster's, once every "
                                  "cluster was bound (Fig. 12's spreading of the last clusters)");
}

void LDescClusterPolicy::begin_kernel(const KernelLaunch& launch) {
  const Kernel& k = launch.kernel;
  const Dim3 g = k.grid();
  clusters_.clear();
  next_unbound_ = 0;
  std::fill(bound_.begin(), bound_.end(), -1);
  std::vector<LDim3> ctiles;
  for (const LocalityDescriptor* d : inter_thread_descriptors(k))
    ctiles.push_back(d->tile.compute_tile);
  clustered_ = fixed_ || !ctiles.empty();
  if (!clustered_) {
    rr_.begin_kernel(launch);
    return;
  }
  shape_ = fixed_ ? clip(g, fixed_shape_) : cluster_shape(g, ctiles, launch.topology.num_sms);
  const LDim3 n = tile_counts(g, shape_);
  for (std::uint32_t cz = 0; cz < n.z; ++cz)
    for (std::uint32_t cy = 0; cy < n.y; ++cy)
      for (std::uint32_t cx = 0; cx < n.x; ++cx) {
        Cluster c;
        for (std::uint32_t z = cz * shape_.z; z < std::min(g.z, (cz + 1) * shape_.z); ++z)
          for (std::uint32_t y = cy * shape_.y; y < std::min(g.y, (cy + 1) * shape_.y); ++y)
            for (std::uint32_t x = cx * shape_.x; x < std::min(g.x, (cx + 1) * shape_.x); ++x)
              c.ctas.push_back((z * g.y + y) * g.x + x);
        clusters_.push_back(std::move(c));
      }
  remaining_ = k.num_ctas();
  if (kernels_clustered_) ++*kernels_clustered_;
  if (clusters_formed_) *clusters_formed_ += clusters_.size();
}

std::uint32_t LDescClusterPolicy::remaining() const {
  return clustered_ ? remaining_ : rr_.remaining();
}

int LDescClusterPolicy::source_for(std::uint32_t sm) {
  if (sm >= bound_.size()) bound_.resize(sm + 1, -1);
  int& b = bound_[sm];
  if (b >= 0 && clusters_[static_cast<std::size_t>(b)].left()) return b;
  if (next_unbound_ < clusters_.size()) return b = static_cast<int>(next_unbound_++);
  int best = -1;
  for (std::size_t c = 0; c < clusters_.size(); ++c)
    if (clusters_[c].left() && (best < 0 || clusters_[c].left() > clusters_[best].left()))
      best = static_cast<int>(c);
  if (best >= 0 && spread_launches_) ++*spread_launches_;
  return best;
}

void LDescClusterPolicy::select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) {
  if (!clustered_) {
    rr_.select(sms, out);
    return;
  }
  std::vector<std::uint32_t> free(sms.size());
  for (std::size_t i = 0; i < sms.size(); ++i) free[i] = sms[i].free_slots;
  bool progress = true;
  while (remaining_ && progress) {
    progress = false;
    for (std::size_t s = 0; s < sms.size() && remaining_; ++s) {
      if (!free[s]) continue;
      const int c = source_for(sms[s].sm);
      if (c < 0) return;
      Cluster& cl = clusters_[static_cast<std::size_t>(c)];
      out.push_back(CtaAssignment{sms[s].sm, cl.ctas[cl.next++]});
      --free[s];
      --remaining_;
      progress = true;
    }
  }
}

}  // namespace locsim
