// The L1D shell with the Locality Descriptor's techniques (seed 000 §4.4-4.5) under the protocol
// checkers: NO-REUSE bypass, hard pinning through real fills, and the guided prefetcher (a fill
// that wakes no warp, a late demand merged into it, a useful hit, drops that never stall). One
// elaboration per TEST_CASE.
#include <catch2/catch.hpp>

#include "harness.h"
#include "l1_bench.h"
#include "model/ldesc_selection.h"
#include "tlm_components/l1_data_cache.h"
#include "tlm_components/protocol_checker.h"

using namespace locsim;
using namespace locsim::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// The shared L1 bench with the Locality Descriptor's statistics on (no unpin timer).
struct Bench : L1Bench {
  explicit Bench(std::uint32_t sets = 4, std::uint32_t ways = 2) : L1Bench(config(sets, ways)) {
    l1->enable_locality_descriptor(0);
  }
  static L1Config config(std::uint32_t sets, std::uint32_t ways) {
    L1Config c;
    c.geometry.sets = sets;
    c.geometry.ways = ways;
    c.mshr_entries = 8;
    c.miss_queue = 8;
    c.hit_latency = 10;
    return c;
  }
  Payload* load(Addr a, std::uint16_t ds) {
    Payload* gp = make_load(ctx, a);
    gpu_ext(*gp).data_structure = ds;
    return gp;
  }
};

DsTreatment structure(Addr base, std::uint64_t bytes) {
  DsTreatment t;
  t.base = base;
  t.bytes = bytes;
  return t;
}

}  // namespace

TEST_CASE("L1D ldesc: NO-REUSE loads bypass and still return their data", "[module][ldesc]") {
  Bench b;
  DsTreatment t = structure(0x1000, 0x1000);
  t.bypass = true;
  b.l1->set_ds_treatment({t});
  b.memory.mem.write(0x1000, reinterpret_cast<const std::uint8_t*>("ldesc!!!"), 8);
  b.sm.push(b.load(0x1000, 0));
  b.sm.push(b.load(0x1000, 0));
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.sm.responses.size() == 2);
  CHECK(std::memcmp(b.sm.responses[0]->get_data_ptr(), "ldesc!!!", 8) == 0);
  CHECK(b.stat("ldesc_no_reuse_bypasses") == 2);
  CHECK(b.stat("misses") == 0);
  CHECK(b.memory.addresses.size() == 2);  // no MSHR merging on the bypass path
  CHECK(b.l1->tags().find(0x1000) < 0);
}

TEST_CASE("L1D ldesc: hard-pinned lines survive a streaming structure in the same set",
          "[module][ldesc]") {
  Bench b(1, 4);  // one set of 4 ways
  DsTreatment pinned = structure(0x10000, 0x1000);
  pinned.pin = kPinHard;
  b.l1->set_ds_treatment({pinned, structure(0x20000, 0x10000)});
  for (Addr i = 0; i < 3; ++i) b.sm.push(b.load(0x10000 + 128 * i, 0));
  sc_core::sc_start(sc_time(1000, SC_NS));
  // A stream, one load at a time: each miss finds the unpinned way filled (not reserved), so it
  // is the victim. (R4.2 picks among non-reserved ways: a miss arriving while that way waits for
  // its fill would take way 0 of the pinned ones.)
  for (Addr i = 0; i < 8; ++i) {
    b.sm.push(b.load(0x20000 + 128 * i, 1));
    sc_core::sc_start(sc_time(300, SC_NS));
  }
  REQUIRE(b.sm.responses.size() == 11);
  CHECK(b.stat("ldesc_hard_pinned_fills") == 3);
  // The stream churned the one unpinned way; the pinned lines are still there and hit.
  for (Addr i = 0; i < 3; ++i) CHECK(b.l1->tags().find(0x10000 + 128 * i) >= 0);
  for (Addr i = 0; i < 3; ++i) b.sm.push(b.load(0x10000 + 128 * i, 0));
  sc_core::sc_start(sc_time(1000, SC_NS));
  CHECK(b.stat("hits") == 3);
  CHECK(b.ctx.pool.in_use() == 14);  // the test initiator keeps its responses
}

TEST_CASE("L1D ldesc: a next-line prefetch wakes no warp, then serves a late and a hitting load",
          "[module][ldesc]") {
  Bench b(16, 2);
  DsTreatment t = structure(0x4000, 0x1000);
  t.prefetch = LDescPrefetch::NextLine;
  b.l1->set_ds_treatment({t});
  b.memory.mem.write(0x4080, reinterpret_cast<const std::uint8_t*>("next"), 4);
  b.memory.mem.write(0x4100, reinterpret_cast<const std::uint8_t*>("line"), 4);
  b.sm.push(b.load(0x4000, 0));  // miss -> prefetch 0x4080
  sc_core::sc_start(sc_time(20, SC_NS));
  b.sm.push(b.load(0x4080, 0));  // the prefetch is in flight: merges (late)
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.sm.responses.size() == 2);  // the prefetch's own fill answered nobody
  CHECK(std::memcmp(b.sm.responses[1]->get_data_ptr(), "next", 4) == 0);
  CHECK(b.stat("pf_issued") == 1);  // 0x4080 after the miss of 0x4000
  CHECK(b.stat("pf_late") == 1);
  CHECK(b.stat("mshr_hits") == 1);
  // The late load merged (not a primary miss), so nothing prefetched 0x4100. A new primary miss
  // at 0x4180 prefetches 0x4200; then a load of 0x4200 hits.
  b.sm.push(b.load(0x4180, 0));
  sc_core::sc_start(sc_time(1000, SC_NS));
  b.sm.push(b.load(0x4200, 0));
  sc_core::sc_start(sc_time(1000, SC_NS));
  REQUIRE(b.sm.responses.size() == 4);
  CHECK(b.stat("pf_useful") == 1);
  CHECK(b.stat("hits") == 1);
  // The last line of the structure has no next line inside it: dropped, not sent.
  b.sm.push(b.load(0x4F80, 0));
  sc_core::sc_start(sc_time(1000, SC_NS));
  CHECK(b.stat("pf_drop_outside") == 1);
  CHECK(b.stat("reservation_fails") == 0);
}
