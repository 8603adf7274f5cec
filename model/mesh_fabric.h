// A packet-level model of one physical 2-D mesh network (seed 002 §3.2 "Communication Fabric",
// Table 1): R x C routers, dimension-order XY routing, virtual channels with credit-based flow
// control, one flit per cycle per link. The request and the reply networks are two instances.
//
// Flow control: virtual cut-through at packet granularity. A packet advances to the next router
// only when one virtual channel of its message class there has credits for the whole packet (a
// packet longer than a VC, e.g. a 5-flit reply in 4-flit VCs, needs an empty VC); it then holds
// the link for one cycle per flit and its credits return when its tail leaves that buffer. It
// takes the VC with the most free space, unless packets of its flow (source, destination) are
// still queued at that port: then it joins their VC, so a flow stays in order (like the
// crossbar's FIFOs) and yet streams over several VCs.
//
// Timing: a packet injected at cycle t can leave its source router at t + router_latency; a hop
// granted at s reaches the next router at s + link_latency and can leave it at
// s + link_latency + router_latency; the ejection grant at s puts the packet in the destination
// terminal's ejection queue at s + flits. Zero-load latency over h hops:
//   h * (router_latency + link_latency) + router_latency + flits            (spec T11)
// (the destination router's pipeline and the ejection serialisation are the constant).
//
// Deadlock freedom: XY routing has an acyclic channel-dependency graph (Dally & Seitz), each
// message class has its own VCs and injection queues (spec I-14: class 0 towards memory never
// waits for class 1), and consumers drain the ejection queues.
//
// Event driven: work happens only at router wake-ups caused by packets (arrival, grant, credit
// return, ejection pop), so the cost is proportional to packet-hops; an idle mesh costs nothing.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "model/ring_buffer.h"
#include "model/stats.h"
#include "model/types.h"

namespace locsim {

// Manhattan distance between two row-major nodes of a mesh with `cols` columns.
std::uint32_t mesh_hops(std::uint32_t a, std::uint32_t b, std::uint32_t cols);

// Memory-partition nodes of a rows x cols mesh (seed 002 R6.2 / I-8), ascending. GPGPU-Sim's
// preset maps for (28, 8, 6x6) and (56, 8, 8x8); otherwise the MCs are spread evenly over the
// columns of the two middle rows (ceil(mcs/2) on row rows/2-1, the rest on row rows/2; one row:
// row 0). Throws std::invalid_argument if cores + mcs > rows * cols or the rows cannot hold them.
std::vector<std::uint32_t> mesh_mc_nodes(std::uint32_t cores, std::uint32_t mcs, std::uint32_t rows,
                                         std::uint32_t cols);
// Core nodes: the nodes not in `mc_nodes`, in increasing order (core 0 -> lowest).
std::vector<std::uint32_t> mesh_core_nodes(std::uint32_t cores,
                                           const std::vector<std::uint32_t>& mc_nodes,
                                           std::uint32_t rows, std::uint32_t cols);
std::vector<std::uint32_t> mesh_core_nodes(std::uint32_t cores, std::uint32_t mcs,
                                           std::uint32_t rows, std::uint32_t cols);

class MeshFabric {
 public:
  using Handle = void*;
  static constexpr Cycle kNever = std::numeric_limits<Cycle>::max();
  // Output/input directions of a router; node (x, y) = (id mod cols, id div cols).
  enum Dir : std::uint32_t { kEast = 0, kWest = 1, kNorth = 2, kSouth = 3 };  // N: y - 1

  struct Config {
    std::uint32_t rows = 6, cols = 6;
    std::vector<std::uint32_t> terminal_node;  // node of each terminal (several may share one)
    std::uint32_t classes = 1;                 // message classes with disjoint VC sets
    std::uint32_t vcs = 4;                     // VCs per input port per class
    std::uint32_t vc_flits = 4;                // buffer of one VC
    std::uint32_t router_latency = 2;          // cycles of router pipeline (spec I-9)
    std::uint32_t link_latency = 1;            // cycles per link
    std::uint32_t injection_buffer = 8;        // packets per terminal per class
    std::uint32_t ejection_buffer = 8;         // packets per terminal (delivered + in flight)
  };

  explicit MeshFabric(const Config& c);
  const Config& config() const { return cfg_; }

  bool can_inject(std::uint32_t src, std::uint32_t cls) const;
  // Enqueues a packet at cycle `now` (>= the last advance()). Precondition: can_inject(src, cls).
  void inject(std::uint32_t src, std::uint32_t dst, std::uint32_t cls, std::uint32_t flits,
              Handle h, Cycle now);
  // Runs every router decision up to and including cycle `now`.
  void advance(Cycle now);
  bool ready(std::uint32_t term, Cycle now) const {
    return !ejq_[term].empty() && ejq_[term].front().ready <= now;
  }
  Handle front(std::uint32_t term) const { return pkts_[ejq_[term].front().pkt].h; }
  // The cycle the head of `term`'s ejection queue was injected at.
  Cycle front_injected(std::uint32_t term) const { return pkts_[ejq_[term].front().pkt].injected; }
  // Takes the head of `term`'s ejection queue; the freed slot counts from the last advance().
  Handle pop(std::uint32_t term);
  // Earliest cycle >= now at which anything can change (a router decision or an ejection head
  // becoming ready); kNever when nothing can until an inject() or pop().
  Cycle next_event(Cycle now) const {
    const Cycle t = events_.first();
    return t == kNever ? kNever : std::max(now, t);
  }
  bool idle() const { return in_flight_ == 0; }

  std::uint32_t nodes() const { return cfg_.rows * cfg_.cols; }
  std::uint32_t terminals() const { return static_cast<std::uint32_t>(cfg_.terminal_node.size()); }
  std::uint32_t node_of(std::uint32_t term) const { return cfg_.terminal_node[term]; }
  std::uint32_t hops(std::uint32_t a, std::uint32_t b) const { return mesh_hops(a, b, cfg_.cols); }
  // Nodes visited from a to b under XY routing, both ends included.
  std::vector<std::uint32_t> xy_path(std::uint32_t a, std::uint32_t b) const;
  // The node next to `node` in direction d; kNoNode at the mesh edge.
  static constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t neighbour(std::uint32_t node, Dir d) const;
  Cycle zero_load_latency(std::uint32_t hops, std::uint32_t flits) const {
    return Cycle{hops} * (cfg_.router_latency + cfg_.link_latency) + cfg_.router_latency + flits;
  }

  // Statistics.
  std::uint64_t packets() const { return packets_; }      // injected
  std::uint64_t flits() const { return flits_; }          // injected
  std::uint64_t delivered() const { return delivered_; }  // popped by the consumer
  std::uint64_t hop_total() const { return hop_total_; }  // link traversals of all packets
  // Flits carried by the link leaving `node` in direction d (utilisation = flits / cycles).
  std::uint64_t link_flits(std::uint32_t node, Dir d) const { return link_flits_[node * 4 + d]; }
  // Also count the link's flits in `c` (a statistics counter of the shell); nullptr: none.
  void bind_link_counter(std::uint32_t node, Dir d, Counter* c) { link_ctr_[node * 4 + d] = c; }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  template <class T>
  using Ring = RingBuffer<T>;  // no allocation once warmed up

  struct Pkt {
    Handle h = nullptr;
    std::uint32_t src = 0, dst = 0, dst_node = 0, cls = 0, flits = 1;
    std::uint32_t out = 0;  // output port at the router it waits in (route() cached)
    Cycle ready = 0;        // earliest cycle it can leave the router it waits in
    Cycle injected = 0;
  };
  struct Queued {
    std::uint32_t pkt;
    std::uint32_t src, dst;  // its flow, copied for downstream_vc's scan
  };
  struct Rel {
    Cycle t;
    std::int32_t flits;
  };
  struct Vc {
    Ring<Queued> q;         // FIFO
    std::int32_t used = 0;  // flits reserved (network ports)
    Ring<Rel> rel;          // credits returning at a cycle
  };
  struct InPort {
    std::vector<Vc> vcs;       // network port: classes * vcs; local port: one queue per class
    std::uint32_t queued = 0;  // packets in vcs (0: skipped by process())
    Cycle busy = 0;            // sends one packet at a time
    std::uint32_t rr = 0;
    std::uint32_t upstream = kNone;  // router feeding this port (credit returns wake it)
  };
  struct OutPort {
    Cycle busy = 0;
    std::uint32_t rr = 0;
    std::uint32_t next = kNone;  // downstream router (directions)
    std::uint32_t term = kNone;  // ejection terminal (local ports)
  };
  struct Router {
    std::vector<InPort> in;  // 0..3 from E/W/N/S neighbours, 4.. local terminals
    std::vector<OutPort> out;
    std::uint32_t queued = 0;  // packets in all input ports (0: a wake-up has nothing to do)
  };
  struct Ej {
    Cycle ready;
    std::uint32_t pkt;
  };
  struct Ev {
    Cycle t;
    std::uint64_t seq;
    std::uint32_t router;  // kNone: an ejection head becoming ready (wakes the consumer)
    bool operator>(const Ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  // Pending events, taken in (t, seq) order: a calendar of one FIFO per cycle for the next
  // kWindow cycles (almost every event: pushes are in seq order, so a FIFO is sorted), heaps
  // for later cycles (after an idle gap) and for cycles already swept (a pop() at the last
  // advance() cycle).
  class EventQueue {
   public:
    static constexpr std::uint32_t kWindow = 32;  // power of two
    void push(const Ev& e);
    // Earliest pending cycle, kNever if none.
    Cycle first() const;
    // Takes the next event with t <= now into `e`; false when there is none. The calendar
    // sweeps cycle by cycle up to now.
    bool pop(Cycle now, Ev& e);

   private:
    void migrate();  // moves the heap's events that entered the window into the calendar
    using Heap = std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>>;
    std::vector<Ev> cal_[kWindow];  // cal_[t % kWindow]: events at t, base_ <= t < base_+kWindow
    std::uint32_t pos_ = 0;         // next event of cal_[base_ % kWindow]
    std::uint64_t in_cal_ = 0;      // events in the calendar
    Cycle base_ = 0;
    Heap later_, late_;  // t >= base_ + kWindow; t < base_
  };

  void wake(std::uint32_t r, Cycle t);
  void process(std::uint32_t r, Cycle t);
  std::uint32_t route(std::uint32_t r, const Pkt& p) const;
  // VC of the downstream input port that can take p now, or kNone.
  std::uint32_t downstream_vc(std::uint32_t r, std::uint32_t o, const Pkt& p, Cycle t);
  std::uint32_t alloc_pkt();
  void enqueue(std::uint32_t r, InPort& ip, std::uint32_t v, std::uint32_t id);

  Config cfg_;
  std::vector<Router> routers_;
  std::vector<std::uint32_t> term_port_;  // local port index of each terminal at its router
  std::vector<Ring<Ej>> ejq_;             // delivered and in-flight packets per terminal
  std::vector<Pkt> pkts_;
  std::vector<std::uint32_t> free_pkts_;
  EventQueue events_;
  std::uint64_t seq_ = 0;
  std::vector<Cycle> queued_t_, proc_t_;
  std::vector<std::uint64_t> queued_seq_, proc_seq_;
  Cycle now_ = 0;  // last advance()
  std::vector<std::uint64_t> link_flits_;
  std::vector<Counter*> link_ctr_;
  std::uint64_t packets_ = 0, flits_ = 0, delivered_ = 0, hop_total_ = 0, in_flight_ = 0;
  // Scratch of process(): per output, the requesting input closest after its round-robin
  // pointer, and per input the VC and downstream VC it requests with.
  std::vector<std::uint32_t> best_, req_vc_, req_dvc_;
};

}  // namespace locsim
