#include "model/mesh_fabric.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace locsim {

std::uint32_t mesh_hops(std::uint32_t a, std::uint32_t b, std::uint32_t cols) {
  const std::uint32_t ax = a % cols, ay = a / cols, bx = b % cols, by = b / cols;
  return (ax > bx ? ax - bx : bx - ax) + (ay > by ? ay - by : by - ay);
}

std::vector<std::uint32_t> mesh_mc_nodes(std::uint32_t cores, std::uint32_t mcs, std::uint32_t rows,
                                         std::uint32_t cols) {
  const std::string size = std::to_string(cores) + " cores + " + std::to_string(mcs) + " MCs";
  if (std::uint64_t{cores} + mcs > std::uint64_t{rows} * cols)
    throw std::invalid_argument("mesh " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " has fewer nodes than " + size);
  // GPGPU-Sim's intersim2 _CreateNodeMap presets (seed 002 R6.2).
  if (cores == 28 && mcs == 8 && rows == 6 && cols == 6) return {3, 7, 10, 12, 23, 25, 28, 32};
  if (cores == 56 && mcs == 8 && rows == 8 && cols == 8) return {3, 15, 17, 29, 36, 47, 49, 61};
  // Interp. I-8: spread evenly along the two middle rows.
  const std::uint32_t r0 = rows >= 2 ? rows / 2 - 1 : 0;
  const std::uint32_t n0 = rows >= 2 ? (mcs + 1) / 2 : mcs;
  const std::uint32_t n1 = mcs - n0;
  if (n0 > cols)
    throw std::invalid_argument("the middle rows of the mesh cannot hold " + size +
                                "; list the MC nodes explicitly");
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t k = 0; k < n0; ++k) nodes.push_back(r0 * cols + (2 * k + 1) * cols / (2 * n0));
  for (std::uint32_t k = 0; k < n1; ++k)
    nodes.push_back((r0 + 1) * cols + (2 * k + 1) * cols / (2 * n1));
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<std::uint32_t> mesh_core_nodes(std::uint32_t cores,
                                           const std::vector<std::uint32_t>& mc_nodes,
                                           std::uint32_t rows, std::uint32_t cols) {
  std::vector<bool> taken(std::size_t{rows} * cols, false);
  for (std::uint32_t n : mc_nodes) {
    if (n >= taken.size())
      throw std::invalid_argument("MC node " + std::to_string(n) + " outside the mesh");
    taken[n] = true;
  }
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t n = 0; n < taken.size() && nodes.size() < cores; ++n)
    if (!taken[n]) nodes.push_back(n);
  if (nodes.size() < cores)
    throw std::invalid_argument("mesh has no room for " + std::to_string(cores) + " cores");
  return nodes;
}

std::vector<std::uint32_t> mesh_core_nodes(std::uint32_t cores, std::uint32_t mcs,
                                           std::uint32_t rows, std::uint32_t cols) {
  return mesh_core_nodes(cores, mesh_mc_nodes(cores, mcs, rows, cols), rows, cols);
}

MeshFabric::MeshFabric(const Config& c)
    : cfg_(c),
      routers_(std::size_t{c.rows} * c.cols),
      term_port_(c.terminal_node.size()),
      ejq_(c.terminal_node.size()),
      queued_t_(routers_.size(), kNever),
      proc_t_(routers_.size(), kNever),
      queued_seq_(routers_.size(), 0),
      proc_seq_(routers_.size(), 0),
      link_flits_(routers_.size() * 4, 0),
      link_ctr_(routers_.size() * 4, nullptr) {
  if (!c.rows || !c.cols || !c.classes || !c.vcs || !c.vc_flits || !c.injection_buffer ||
      !c.ejection_buffer)
    throw std::invalid_argument(
        "mesh needs at least one row, column, class, VC, VC flit and buffer slot");
  for (std::uint32_t r = 0; r < routers_.size(); ++r) {
    Router& rt = routers_[r];
    rt.in.resize(4);
    rt.out.resize(4);
    for (std::uint32_t d = 0; d < 4; ++d) {
      const std::uint32_t n = neighbour(r, static_cast<Dir>(d));
      rt.out[d].next = n;
      rt.in[d].upstream = n;
      if (n != kNoNode) rt.in[d].vcs.resize(std::size_t{c.classes} * c.vcs);
    }
  }
  for (std::uint32_t t = 0; t < c.terminal_node.size(); ++t) {
    const std::uint32_t n = c.terminal_node[t];
    if (n >= routers_.size())
      throw std::invalid_argument("mesh terminal " + std::to_string(t) + " at node " +
                                  std::to_string(n) + " outside the mesh");
    Router& rt = routers_[n];
    term_port_[t] = static_cast<std::uint32_t>(rt.in.size());
    rt.in.emplace_back();
    rt.in.back().vcs.resize(c.classes);
    rt.out.emplace_back();
    rt.out.back().term = t;
  }
  std::size_t ports = 4;
  for (auto& rt : routers_) ports = std::max(ports, rt.in.size());
  best_.resize(ports);
  req_vc_.resize(ports);
  req_dvc_.resize(ports);
}

std::uint32_t MeshFabric::neighbour(std::uint32_t node, Dir d) const {
  const std::uint32_t x = node % cfg_.cols, y = node / cfg_.cols;
  switch (d) {
    case kEast:
      return x + 1 < cfg_.cols ? node + 1 : kNoNode;
    case kWest:
      return x > 0 ? node - 1 : kNoNode;
    case kNorth:
      return y > 0 ? node - cfg_.cols : kNoNode;
    case kSouth:
      return y + 1 < cfg_.rows ? node + cfg_.cols : kNoNode;
  }
  return kNoNode;
}

std::vector<std::uint32_t> MeshFabric::xy_path(std::uint32_t a, std::uint32_t b) const {
  std::vector<std::uint32_t> path{a};
  Pkt p;
  p.dst_node = b;
  for (std::uint32_t n = a; n != b;) {
    n = routers_[n].out[route(n, p)].next;
    path.push_back(n);
  }
  return path;
}

void MeshFabric::enqueue(std::uint32_t r, InPort& ip, std::uint32_t v, std::uint32_t id) {
  const Pkt& p = pkts_[id];
  ip.vcs[v].q.push_back(Queued{id, p.src, p.dst});
  ++ip.queued;
  ++routers_[r].queued;
}

bool MeshFabric::can_inject(std::uint32_t src, std::uint32_t cls) const {
  return routers_[cfg_.terminal_node[src]].in[term_port_[src]].vcs[cls].q.size() <
         cfg_.injection_buffer;
}

std::uint32_t MeshFabric::alloc_pkt() {
  if (free_pkts_.empty()) {
    pkts_.emplace_back();
    return static_cast<std::uint32_t>(pkts_.size() - 1);
  }
  const std::uint32_t id = free_pkts_.back();
  free_pkts_.pop_back();
  return id;
}

void MeshFabric::inject(std::uint32_t src, std::uint32_t dst, std::uint32_t cls,
                        std::uint32_t flits, Handle h, Cycle now) {
  if (src >= terminals() || dst >= terminals() || cls >= cfg_.classes)
    throw std::invalid_argument("mesh inject: terminal or class out of range");
  const std::uint32_t id = alloc_pkt();
  Pkt& p = pkts_[id];
  p.h = h;
  p.src = src;
  p.dst = dst;
  p.dst_node = cfg_.terminal_node[dst];
  p.cls = cls;
  p.flits = flits ? flits : 1;
  p.ready = now + cfg_.router_latency;  // the source router's pipeline
  p.injected = now;
  const std::uint32_t r = cfg_.terminal_node[src];
  p.out = route(r, p);
  enqueue(r, routers_[r].in[term_port_[src]], cls, id);
  ++packets_;
  flits_ += p.flits;
  ++in_flight_;
  wake(r, p.ready);
}

void MeshFabric::wake(std::uint32_t r, Cycle t) {
  // A wake-up already queued for this cycle and not yet served covers this one.
  if (queued_t_[r] == t && queued_seq_[r] > proc_seq_[r]) return;
  events_.push(Ev{t, ++seq_, r});
  queued_t_[r] = t;
  queued_seq_[r] = seq_;
}

void MeshFabric::EventQueue::push(const Ev& e) {
  if (e.t < base_) {
    late_.push(e);
  } else if (e.t - base_ < kWindow) {
    cal_[e.t % kWindow].push_back(e);
    ++in_cal_;
  } else {
    later_.push(e);
  }
}

Cycle MeshFabric::EventQueue::first() const {
  if (!late_.empty()) return late_.top().t;
  if (in_cal_) {
    if (pos_ < cal_[base_ % kWindow].size()) return base_;
    for (Cycle t = base_ + 1;; ++t)
      if (!cal_[t % kWindow].empty()) return t;
  }
  return later_.empty() ? kNever : later_.top().t;
}

void MeshFabric::EventQueue::migrate() {
  while (!later_.empty() && later_.top().t - base_ < kWindow) {
    cal_[later_.top().t % kWindow].push_back(later_.top());
    ++in_cal_;
    later_.pop();
  }
}

bool MeshFabric::EventQueue::pop(Cycle now, Ev& e) {
  // Events at swept cycles come before every calendar cycle.
  if (!late_.empty() && late_.top().t <= now) {
    e = late_.top();
    late_.pop();
    return true;
  }
  while (base_ <= now) {
    std::vector<Ev>& b = cal_[base_ % kWindow];
    if (pos_ < b.size()) {
      e = b[pos_++];
      --in_cal_;
      return true;
    }
    // Cycle base_ is done (events pushed for it from now on are late).
    b.clear();
    pos_ = 0;
    ++base_;
    // Nothing in the calendar: jump over the idle cycles.
    if (!in_cal_)
      base_ = std::max(base_, later_.empty() ? now + 1 : std::min(now + 1, later_.top().t));
    migrate();
  }
  return false;
}

void MeshFabric::advance(Cycle now) {
  now_ = std::max(now_, now);
  Ev e{};
  while (events_.pop(now, e)) {
    if (e.router == kNone) continue;  // an ejection head became ready: the consumer's business
    // Served already at this cycle after the wake-up was queued.
    if (proc_t_[e.router] == e.t && e.seq < proc_seq_[e.router]) continue;
    proc_t_[e.router] = e.t;
    proc_seq_[e.router] = ++seq_;
    process(e.router, e.t);
  }
}

std::uint32_t MeshFabric::route(std::uint32_t r, const Pkt& p) const {
  const std::uint32_t x = r % cfg_.cols, y = r / cfg_.cols;
  const std::uint32_t dx = p.dst_node % cfg_.cols, dy = p.dst_node / cfg_.cols;
  if (dx != x) return dx > x ? kEast : kWest;  // X first (dimension order)
  if (dy != y) return dy > y ? kSouth : kNorth;
  return term_port_[p.dst];
}

std::uint32_t MeshFabric::downstream_vc(std::uint32_t r, std::uint32_t o, const Pkt& p, Cycle t) {
  const OutPort& op = routers_[r].out[o];
  if (op.term != kNone) return ejq_[op.term].size() < cfg_.ejection_buffer ? 0 : kNone;
  // The input port of the next router facing us: east <-> west, north <-> south.
  InPort& ip = routers_[op.next].in[o ^ 1u];
  const std::uint32_t base = p.cls * cfg_.vcs;
  const std::int32_t cap = static_cast<std::int32_t>(cfg_.vc_flits);
  const std::int32_t f = static_cast<std::int32_t>(p.flits);
  auto free_flits = [&](Vc& vc) {
    while (!vc.rel.empty() && vc.rel.front().t <= t) {
      vc.used -= vc.rel.front().flits;
      vc.rel.pop_front();
    }
    return cap - vc.used;
  };
  auto fits = [&](Vc& vc) { return f <= cap ? free_flits(vc) >= f : free_flits(vc) == cap; };
  // A flow (source, destination) with packets still queued at that port must join their VC:
  // FIFO within a VC keeps the flow in order. Otherwise the VC with the most free space.
  if (ip.queued)
    for (std::uint32_t v = base; v < base + cfg_.vcs; ++v) {
      const Ring<Queued>& q = ip.vcs[v].q;
      for (std::uint32_t j = 0; j < q.size(); ++j)
        if (q[j].src == p.src && q[j].dst == p.dst) return fits(ip.vcs[v]) ? v : kNone;
    }
  std::uint32_t best = kNone;
  std::int32_t best_free = 0;
  for (std::uint32_t v = base; v < base + cfg_.vcs; ++v) {
    if (!fits(ip.vcs[v])) continue;
    const std::int32_t fr = free_flits(ip.vcs[v]);
    if (best == kNone || fr > best_free) {
      best = v;
      best_free = fr;
    }
  }
  return best;
}

void MeshFabric::process(std::uint32_t r, Cycle t) {
  Router& rt = routers_[r];
  if (!rt.queued) return;  // credit returns and idle wake-ups of an empty router
  const std::uint32_t ni = static_cast<std::uint32_t>(rt.in.size());
  const std::uint32_t no = static_cast<std::uint32_t>(rt.out.size());
  // Separable allocation, input first: every idle input offers its first eligible VC head in
  // round-robin order (ready, output idle, credits downstream) ...
  for (std::uint32_t o = 0; o < no; ++o) best_[o] = ni;
  bool any = false;
  for (std::uint32_t i = 0; i < ni; ++i) {
    InPort& ip = rt.in[i];
    if (!ip.queued || ip.busy > t) continue;
    const std::uint32_t nv = static_cast<std::uint32_t>(ip.vcs.size());
    for (std::uint32_t k = 0, v = ip.rr; k < nv; ++k, v = v + 1 == nv ? 0 : v + 1) {
      if (ip.vcs[v].q.empty()) continue;
      const Pkt& p = pkts_[ip.vcs[v].q.front().pkt];
      if (p.ready > t) continue;
      const std::uint32_t o = p.out;
      if (rt.out[o].busy > t) continue;
      const std::uint32_t dvc = downstream_vc(r, o, p, t);
      if (dvc == kNone) continue;
      req_vc_[i] = v;
      req_dvc_[i] = dvc;
      const std::uint32_t dist = (i + ni - rt.out[o].rr) % ni;
      if (best_[o] == ni || dist < (best_[o] + ni - rt.out[o].rr) % ni) best_[o] = i;
      any = true;
      break;
    }
  }
  if (!any) return;
  // ... and every output grants the requesting input closest after its round-robin pointer.
  for (std::uint32_t o = 0; o < no; ++o) {
    if (best_[o] == ni) continue;
    const std::uint32_t i = best_[o];
    InPort& ip = rt.in[i];
    OutPort& op = rt.out[o];
    Vc& src_vc = ip.vcs[req_vc_[i]];
    const std::uint32_t id = src_vc.q.front().pkt;
    src_vc.q.pop_front();
    --ip.queued;
    --rt.queued;
    Pkt& p = pkts_[id];
    const Cycle done = t + p.flits;  // the tail has crossed the switch and the link
    if (ip.upstream != kNone) {
      // Credits return when the tail leaves this buffer; the upstream router may be waiting.
      src_vc.rel.push_back(Rel{done, static_cast<std::int32_t>(p.flits)});
      wake(ip.upstream, done);
    }
    ip.busy = op.busy = done;
    ip.rr = req_vc_[i] + 1 == ip.vcs.size() ? 0 : req_vc_[i] + 1;
    op.rr = i + 1 == ni ? 0 : i + 1;
    wake(r, done);
    if (op.term != kNone) {
      ejq_[op.term].push_back(Ej{done, id});
      events_.push(Ev{done, ++seq_, kNone});
    } else {
      link_flits_[r * 4 + o] += p.flits;
      if (Counter* c = link_ctr_[r * 4 + o]) *c += p.flits;
      ++hop_total_;
      Router& next = routers_[op.next];
      InPort& dip = next.in[o ^ 1u];
      dip.vcs[req_dvc_[i]].used += static_cast<std::int32_t>(p.flits);
      p.ready = t + cfg_.link_latency + cfg_.router_latency;
      p.out = route(op.next, p);
      enqueue(op.next, dip, req_dvc_[i], id);
      wake(op.next, p.ready);
    }
  }
}

MeshFabric::Handle MeshFabric::pop(std::uint32_t term) {
  const bool was_full = ejq_[term].size() >= cfg_.ejection_buffer;
  const std::uint32_t id = ejq_[term].front().pkt;
  ejq_[term].pop_front();
  Handle h = pkts_[id].h;
  free_pkts_.push_back(id);
  ++delivered_;
  --in_flight_;
  // A packet may be waiting for this slot at the terminal's router.
  if (was_full) wake(cfg_.terminal_node[term], now_);
  return h;
}

}  // namespace locsim
