#include "model/paver_policy.h"

#include <algorithm>
#include <chrono>

namespace locsim {

void TbGroupRuntime::reset(const std::vector<CtaGroup>& groups, std::uint32_t num_sms, bool steal) {
  tbs_.clear();
  group_.clear();
  for (const CtaGroup& g : groups) {
    if (g.empty()) continue;
    group_.push_back(static_cast<std::uint32_t>(tbs_.size()));
    tbs_.insert(tbs_.end(), g.begin(), g.end());
  }
  group_.push_back(static_cast<std::uint32_t>(tbs_.size()));
  queue_head_ = 0;
  sms_.assign(num_sms, SmState{});
  steal_ = steal;
  groups_dequeued = steals = stolen_ctas = 0;
  remaining_ = static_cast<std::uint32_t>(tbs_.size());
}

TbGroupRuntime::StealPlan TbGroupRuntime::plan_steal() const {
  StealPlan p;
  std::uint32_t max_waiting = 0;
  std::uint64_t sum = 0;
  for (std::uint32_t s = 0; s < sms_.size(); ++s) {
    const std::uint32_t w = sms_[s].tail - sms_[s].next;
    if (w > max_waiting) {
      max_waiting = w;
      p.donor = s;
    }
    sum += w;
  }
  const std::uint64_t avg = sms_.empty() ? 0 : sum / sms_.size();
  p.count = max_waiting - static_cast<std::uint32_t>(avg);
  return p;
}

bool TbGroupRuntime::next_for(std::uint32_t sm, std::uint32_t& cta) {
  SmState& s = sms_.at(sm);
  if (s.next == s.tail) {
    if (queue_head_ + 1 < group_.size()) {  // dequeue the next group (R5.4)
      s.next = group_[queue_head_];
      s.tail = group_[queue_head_ + 1];
      ++queue_head_;
      ++groups_dequeued;
    } else if (steal_) {  // Alg. 2: take the last `count` waiting CTAs of the donor's group
      const StealPlan p = plan_steal();
      if (p.count == 0) return false;
      SmState& d = sms_[p.donor];
      s.tail = d.tail;
      d.tail -= p.count;
      s.next = d.tail;
      ++steals;
      stolen_ctas += p.count;
    } else {
      return false;
    }
  }
  cta = tbs_[s.next++];
  --remaining_;
  return true;
}

std::vector<CtaGroup> paver_groups(const LocalityGraph& g, const PaverOptions& o,
                                   std::uint32_t num_sms, std::uint32_t ctas_per_sm) {
  switch (o.algorithm) {
    case PaverAlgorithm::Mst:
      return mst_groups(g, num_sms, ctas_per_sm);
    case PaverAlgorithm::Kway:
      return kway_groups(g, num_sms, o.seed);
    case PaverAlgorithm::Rb:
      return rb_groups(g, ctas_per_sm, o.rb_leq, o.seed);
  }
  return {};
}

const char* PaverPolicy::name() const {
  switch (opt_.algorithm) {
    case PaverAlgorithm::Mst:
      return "paver-mst";
    case PaverAlgorithm::Kway:
      return "paver-kway";
    case PaverAlgorithm::Rb:
      return "paver-rb";
  }
  return "paver";
}

void PaverPolicy::register_stats(StatRegistry& reg, const std::string& path) {
  st_.vertices = &reg.counter(path, "paver", "graph_vertices", "CTAs",
                              "vertices of the locality graphs (one per CTA)");
  st_.edges = &reg.counter(path, "paver", "graph_edges", "edges",
                           "undirected edges of the locality graphs (CTA pairs reading a common "
                           "element)");
  st_.weight = &reg.counter(path, "paver", "graph_weight", "elements",
                            "sum of edge weights (elements read by both CTAs of a pair)");
  st_.captured = &reg.counter(path, "paver", "captured_weight", "elements",
                              "edge weight inside the groups (locality captured, Sec. 6.3)");
  st_.capped = &reg.counter(path, "paver", "capped_elements", "elements",
                            "shared elements left out of the graphs by max_sharers");
  st_.groups = &reg.counter(path, "paver", "groups", "groups", "CTA groups formed");
  st_.dequeues = &reg.counter(path, "paver", "group_dequeues", "groups",
                              "groups taken from the global queue by an SM");
  st_.steals = &reg.counter(path, "paver", "steals", "events", "task steals (Alg. 2)");
  st_.stolen = &reg.counter(path, "paver", "stolen_ctas", "CTAs", "CTAs moved by task stealing");
}

void PaverPolicy::begin_kernel(const KernelLaunch& launch) {
  const auto t0 = std::chrono::steady_clock::now();
  LocalityGraphOptions go;
  go.element_bytes = opt_.graph_bytes;
  go.max_sharers = opt_.max_sharers;
  const LocalityGraphBuild b = build_locality_graph(launch.kernel, go);
  const std::uint32_t x = std::max<std::uint32_t>(1, launch.max_ctas_per_sm);
  groups_ = paver_groups(b.graph, opt_, launch.topology.num_sms, x);
  // MST-TS: "the TB-Group size is 1" after the first groups, so nothing to steal (§4.1).
  runtime_.reset(groups_, launch.topology.num_sms,
                 opt_.steal && opt_.algorithm != PaverAlgorithm::Mst);
  dequeues_seen_ = steals_seen_ = stolen_seen_ = 0;
  analysis_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (st_.vertices) {
    *st_.vertices += b.graph.num_vertices;
    *st_.edges += b.graph.num_edges();
    *st_.weight += b.graph.total_weight();
    *st_.captured += captured_weight(b.graph, groups_);
    *st_.capped += b.capped_elements;
    *st_.groups += groups_.size();
  }
}

void PaverPolicy::select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) {
  free_.resize(sms.size());
  for (std::size_t i = 0; i < sms.size(); ++i) free_[i] = sms[i].free_slots;
  for (bool progress = true; progress && runtime_.remaining();) {
    progress = false;
    for (std::size_t i = 0; i < sms.size() && runtime_.remaining(); ++i) {
      std::uint32_t cta = 0;
      if (free_[i] == 0 || !runtime_.next_for(sms[i].sm, cta)) continue;
      out.push_back({sms[i].sm, cta});
      --free_[i];
      progress = true;
    }
  }
  if (st_.vertices) {
    *st_.dequeues += runtime_.groups_dequeued - dequeues_seen_;
    *st_.steals += runtime_.steals - steals_seen_;
    *st_.stolen += runtime_.stolen_ctas - stolen_seen_;
  }
  dequeues_seen_ = runtime_.groups_dequeued;
  steals_seen_ = runtime_.steals;
  stolen_seen_ = runtime_.stolen_ctas;
}

}  // namespace locsim
