// GPU metadata carried by every memory transaction (tlm_extension): who issued it, what it is,
// which bytes it touches, and where it currently sits (for the watchdog).
#pragma once
#include <cstdint>
#include <cstring>
#include <systemc>
#include <tlm>
#include <typeinfo>
#include <vector>

#include "model/types.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/requester_list.h"
#include "tlm_components/timeline.h"

namespace locsim {

// Granularity of GpuExtension::sector_mask (and of sector-sized NoC replies).
constexpr unsigned kTransferSectorBytes = 32;

struct GpuExtension : tlm::tlm_extension<GpuExtension> {
  std::uint64_t id = 0;  // unique per run, assigned by the payload pool
  std::uint16_t sm = 0;  // issuing SM (first requester for merged requests)
  std::uint16_t cluster = 0;
  std::uint16_t warp = 0;    // warp slot in the SM
  std::uint32_t cta = 0;     // linear CTA id
  std::uint16_t kernel = 0;  // kernel sequence number in the run
  std::uint16_t data_structure = 0xffff;
  AccessKind kind = AccessKind::Load;
  // 32 B sectors of the line the request moves (kTransferSectorBytes units, whatever the
  // caches' own sector size): the NoC sizes replies from it. Caches derive their tag-array
  // sectors from `bytes`.
  std::uint32_t sector_mask = 0;
  ByteMask bytes;  // bytes of the line touched (authoritative)
  // Seed 004 §5.2 bypass granularity: the requester's rank among the SM's warps of its CTA (one
  // CTA per SM) or among its CTA slots (several CTAs per SM), and how many there are (N).
  std::uint16_t bypass_rank = 0;
  std::uint16_t bypass_population = 1;
  RequesterList requesters;      // SMs served by this (possibly merged) request
  std::uint64_t issue_ps = 0;    // when the SM issued the request (latency statistics)
  const void* owner = nullptr;   // module that created the payload (routes its replies)
  std::uintptr_t owner_tag = 0;  // owner's private handle
  // Routing chosen by the sender instead of the address: the `out` binding of the interconnect
  // the request enters next (a shared L1's home core, seed 002 §3.2); -1: the address decides.
  // The interconnect clears it when it accepts the request.
  std::int32_t noc_target = -1;
  // Watchdog bookkeeping: current holder and since when.
  const char* where = "pool";
  sc_core::sc_time since = sc_core::SC_ZERO_TIME;
  // Read by few blocks (L1 fills, atomics, timelines): after what every hop reads.
  ByteMask demand;  // L1 fills: bytes the missing load wanted (bytes may be the whole line)
  std::uint8_t word_count[32] = {};  // atomics: lanes adding 1 to each 4-byte word of the line
  std::uint64_t parent = 0;          // the payload whose miss created this one (timelines), 0: none

  tlm::tlm_extension_base* clone() const override { return new GpuExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const GpuExtension&>(other);
  }
  // Every field back to its default (as a new GpuExtension has it) and `id` to new_id.
  void reset_fields(std::uint64_t new_id) { init_fields(new_id, Init{}); }
  // What the block creating a request says about it; the other fields take their defaults.
  // The defaults here are those of the members above.
  struct Init {
    std::uint16_t sm = 0;
    std::uint16_t cluster = 0;
    std::uint16_t warp = 0;
    std::uint32_t cta = 0;
    std::uint16_t kernel = 0;
    std::uint16_t data_structure = 0xffff;
    AccessKind kind = AccessKind::Load;
    std::uint32_t sector_mask = 0;
    ByteMask bytes;
    ByteMask demand;
    std::uint16_t bypass_rank = 0;
    std::uint16_t bypass_population = 1;
    bool sm_requests = false;  // requesters = {sm}, else empty
    std::uint64_t issue_ps = 0;
    const void* owner = nullptr;
    std::uintptr_t owner_tag = 0;
    std::uint64_t parent = 0;
  };
  // Every field from `in` or its default and `id` to new_id, each written once, field by field:
  // no temporary is built, copied and destroyed per payload, and a pooled payload's fields are
  // not reset and then written again by its creator. requesters keeps its capacity (no
  // allocation on the hot path). A new member must be set here too.
  [[gnu::always_inline]] void init_fields(std::uint64_t new_id, const Init& in) {
    id = new_id;
    sm = in.sm;
    cluster = in.cluster;
    warp = in.warp;
    cta = in.cta;
    kernel = in.kernel;
    data_structure = in.data_structure;
    kind = in.kind;
    sector_mask = in.sector_mask;
    bytes = in.bytes;
    demand = in.demand;
    bypass_rank = in.bypass_rank;
    bypass_population = in.bypass_population;
    requesters.clear();
    if (in.sm_requests) requesters.push_back(in.sm);
    std::memset(word_count, 0, sizeof word_count);
    issue_ps = in.issue_ps;
    owner = in.owner;
    owner_tag = in.owner_tag;
    parent = in.parent;
    noc_target = -1;
    where = "pool";  // at() records the first holder (and a timeline reads the previous one)
    since = sc_core::SC_ZERO_TIME;
  }
  // init_fields() without the fields a request's creator sets itself (the SM's line requests,
  // PayloadPool::allocate_request()): sm, cluster, warp, cta, kernel, data_structure, kind,
  // sector_mask, bytes, bypass_rank, bypass_population, requesters (left empty), issue_ps,
  // owner, owner_tag. A new member must be set here too (or in every such creator).
  [[gnu::always_inline]] void reset_uncreated(std::uint64_t new_id) {
    id = new_id;
    demand = ByteMask();
    requesters.clear();
    std::memset(word_count, 0, sizeof word_count);
    parent = 0;
    noc_target = -1;
    where = "pool";
    since = sc_core::SC_ZERO_TIME;
  }
  void at(const char* module) {
    if (Timeline* t = Timeline::active()) t->moved(*this, module);  // off: one load and a test
    where = module;
    since = sim_time();
  }
};

// The return path of a request through nested networks (route_extension.h): each interconnect
// pushes the ingress binding a request entered by, and pops it when the reply leaves.
struct RouteExtension : tlm::tlm_extension<RouteExtension> {
  static constexpr unsigned kMaxHops = 4;  // nesting depth of interconnects on one path

  void push(std::uint32_t ingress) {
    sc_assert(depth_ < kMaxHops && ingress <= 0xffff);
    hops_[depth_++] = static_cast<std::uint16_t>(ingress);
  }
  // The ingress binding of the innermost interconnect the request is in. Precondition: depth().
  std::uint32_t top() const {
    sc_assert(depth_ > 0);
    return hops_[depth_ - 1];
  }
  std::uint32_t pop() {
    const std::uint32_t p = top();
    --depth_;
    return p;
  }
  unsigned depth() const { return depth_; }
  void clear() { depth_ = 0; }

  tlm::tlm_extension_base* clone() const override { return new RouteExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const RouteExtension&>(other);
  }

 private:
  std::uint16_t hops_[kMaxHops] = {};
  std::uint8_t depth_ = 0;
};

// The payload PayloadPool hands out (tlm_components/payload_pool.h): data and byte-enable buffers
// and extensions allocated once with it. Declared here so that gpu_ext() and route_ext() can
// recognise one by its type and read its extensions directly.
struct PooledPayload final : tlm::tlm_generic_payload {
  static constexpr unsigned kMaxBytes = 128;
  explicit PooledPayload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {
    set_extension(&ext);
    set_extension(&route);
  }
  // The generic payload's destructor free()s (deletes) every attached extension: detach the
  // member ones first.
  ~PooledPayload() override {
    clear_extension(&ext);
    clear_extension(&route);
  }
  // Attached with set_extension for the payload's whole life. Every hop reads the route and the
  // extension's first fields: right after the generic payload's, they share its last host cache
  // line and span five lines with it (the pool's fields, read at allocation and release, and the
  // data buffers, read only in data-integrity mode, come last).
  RouteExtension route;
  GpuExtension ext;
  bool busy = false;
  PooledPayload* next_free = nullptr;  // the pool's free list
  std::uint8_t data[kMaxBytes];
  std::uint8_t byte_enable[kMaxBytes];
};

// The pooled payload `gp` is, or nullptr for a payload from elsewhere. The generic payload's
// extension lookup is an out-of-line call into the SystemC library, made a few dozen times per
// transaction; the type test is a few inline loads.
inline PooledPayload* as_pooled(tlm::tlm_generic_payload& gp) {
  return typeid(gp) == typeid(PooledPayload) ? static_cast<PooledPayload*>(&gp) : nullptr;
}

inline GpuExtension& gpu_ext(tlm::tlm_generic_payload& gp) {
  if (PooledPayload* p = as_pooled(gp)) return p->ext;
  GpuExtension* e = nullptr;
  gp.get_extension(e);
  sc_assert(e != nullptr);
  return *e;
}

}  // namespace locsim
