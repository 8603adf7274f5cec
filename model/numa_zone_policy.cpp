#include "model/numa_zone_policy.h"

#include <stdexcept>
#include <string>

#include "model/ldesc_clustering.h"
#include "model/numa_partition.h"

namespace locsim {

void NumaZonePolicy::begin_kernel(const KernelLaunch& launch) {
  zones_ = std::max<std::uint32_t>(1, launch.topology.num_modules);
  if (launch.topology.num_sms % zones_ != 0)
    throw std::invalid_argument("numa-zone: " + std::to_string(zones_) + " modules do not divide " +
                                std::to_string(launch.topology.num_sms) + " SMs");
  sms_per_zone_ = launch.topology.num_sms / zones_;
  const std::uint32_t n = launch.num_ctas();
  if (partition_ == Partition::LDesc && zones_ > 1) {
    const NumaPlan plan = plan_numa(numa_tile_maps(launch.kernel), n, zones_, epsilon_);
    cta_zone_ = plan.cta_zone;
    if (plan.driver >= 0 && ldesc_partitions_) ++*ldesc_partitions_;
  } else {
    cta_zone_ = contiguous_partition(n, zones_);
  }
  queue_.assign(zones_, {});
  for (std::uint32_t c = 0; c < n; ++c) queue_[cta_zone_[c]].push_back(c);
  next_.assign(zones_, 0);
  next_sm_.assign(zones_, 0);
  remaining_ = n;
  clusters_.clear();
  shape_ = {1, 1, 1};
  if (partition_ != Partition::LDesc || !cluster_inside_) return;
  // R8.4: Algorithm 1 with SM_NUM = the SMs of one zone; a cluster's CTAs run in their zone.
  const Dim3 grid = launch.kernel.grid();
  std::vector<LDim3> ctiles;
  for (const LocalityDescriptor* d : inter_thread_descriptors(launch.kernel))
    ctiles.push_back(d->tile.compute_tile);
  if (!ctiles.empty()) shape_ = locsim::cluster_shape(grid, ctiles, sms_per_zone_);
  const std::uint32_t ncx = (grid.x + shape_.x - 1) / shape_.x;
  const std::uint32_t ncy = (grid.y + shape_.y - 1) / shape_.y;
  clusters_.assign(zones_, {});
  std::vector<std::vector<int>> index(zones_);  // cluster id -> position in clusters_[z]
  for (std::uint32_t c = 0; c < n; ++c) {
    const std::uint32_t x = c % grid.x, y = (c / grid.x) % grid.y, z = c / (grid.x * grid.y);
    const std::uint32_t id = x / shape_.x + ncx * (y / shape_.y + ncy * (z / shape_.z));
    const std::uint32_t zone = cta_zone_[c];
    if (index[zone].size() <= id) index[zone].resize(id + 1, -1);
    if (index[zone][id] < 0) {
      index[zone][id] = static_cast<int>(clusters_[zone].size());
      clusters_[zone].push_back({});
    }
    clusters_[zone][static_cast<std::size_t>(index[zone][id])].ctas.push_back(c);
  }
  next_unbound_.assign(zones_, 0);
  bound_.assign(launch.topology.num_sms, -1);
}

int NumaZonePolicy::source_for(std::uint32_t zone, std::uint32_t sm) {
  std::vector<Cluster>& cl = clusters_[zone];
  int& b = bound_[sm];
  if (b >= 0 && cl[static_cast<std::size_t>(b)].left()) return b;
  if (next_unbound_[zone] < cl.size()) return b = static_cast<int>(next_unbound_[zone]++);
  int best = -1;
  for (std::size_t c = 0; c < cl.size(); ++c)
    if (cl[c].left() && (best < 0 || cl[c].left() > cl[static_cast<std::size_t>(best)].left()))
      best = static_cast<int>(c);
  return best;
}

void NumaZonePolicy::select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) {
  std::vector<std::uint32_t> free(sms.size());
  for (std::size_t i = 0; i < sms.size(); ++i) free[i] = sms[i].free_slots;
  if (!clusters_.empty()) {
    // LDesc: Fig. 12's runtime inside each zone, one CTA per SM visit.
    bool progress = true;
    while (remaining_ && progress) {
      progress = false;
      for (std::size_t s = 0; s < sms.size() && remaining_; ++s) {
        if (!free[s]) continue;
        const std::uint32_t sm = sms[s].sm, zone = sm / sms_per_zone_;
        const int c = source_for(zone, sm);
        if (c < 0) continue;
        Cluster& cl = clusters_[zone][static_cast<std::size_t>(c)];
        out.push_back(CtaAssignment{sm, cl.ctas[cl.next++]});
        --free[s];
        --remaining_;
        progress = true;
      }
    }
    return;
  }
  for (std::uint32_t z = 0; z < zones_; ++z) {
    const std::uint32_t first = z * sms_per_zone_;
    // Round-robin over the zone's SMs from where its last launch left off, one CTA per visit.
    bool progress = true;
    while (next_[z] < queue_[z].size() && progress) {
      progress = false;
      for (std::uint32_t k = 0; k < sms_per_zone_; ++k) {
        const std::uint32_t s = first + (next_sm_[z] + k) % sms_per_zone_;
        if (s >= sms.size() || !free[s]) continue;
        --free[s];
        out.push_back(CtaAssignment{sms[s].sm, queue_[z][next_[z]++]});
        --remaining_;
        next_sm_[z] = (s - first + 1) % sms_per_zone_;
        progress = true;
        break;
      }
    }
  }
}

void NumaZonePolicy::register_stats(StatRegistry& reg, const std::string& path) {
  ldesc_partitions_ = &reg.counter(path, "numa", "ldesc_partitions", "kernels",
                                   "kernels whose CTAs Algorithm 2 partitioned over the zones");
}

}  // namespace locsim
