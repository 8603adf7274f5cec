// Functional replay of the cache hierarchy: exact counts for hand-built access sequences.
// Unless a test says otherwise the configuration is one SM with
//   L1: 2 sets x 2 ways, 128 B lines, unsectored  -> set = (addr >> 7) & 1
//   L2: 1 sub-partition, 4 sets x 2 ways, 128 B lines, 32 B sectors -> set = (addr >> 7) & 3
// so lines 0x000, 0x100, 0x200 share L1 set 0, and 0x000, 0x200, 0x400 share L2 set 0.
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <vector>

#include "model/functional_hierarchy.h"
#include "model/workload/kernel.h"

using namespace locsim;

namespace {

FunctionalConfig tiny(std::uint32_t sms = 1, bool l1_enabled = true,
                      std::uint32_t l1_sector = 128) {
  FunctionalConfig c;
  c.num_sms = sms;
  c.l1_enabled = l1_enabled;
  c.l1 = CacheGeometry{2, 2, 128, l1_sector, SetIndexing::Linear};
  c.l2 = CacheGeometry{4, 2, 128, 32, SetIndexing::Linear};
  return c;
}

// One channel with one L2 sub-partition.
const AddressMap& one_channel() {
  static const AddressMap m([] {
    AddressMapConfig a;
    a.channels = 1;
    a.subpartitions_per_channel = 1;
    return a;
  }());
  return m;
}

// `lanes` consecutive 4-byte words starting at base (lanes 0..lanes-1 active).
struct Access {
  std::array<Addr, kWarpSize> addr{};
  std::uint32_t mask = 0;
};
Access words(Addr base, unsigned lanes) {
  Access a;
  for (unsigned l = 0; l < lanes; ++l) {
    a.addr[l] = base + 4 * l;
    a.mask |= 1u << l;
  }
  return a;
}

void ld(FunctionalHierarchy& h, Addr base, unsigned lanes = 32, std::uint32_t sm = 0) {
  Access a = words(base, lanes);
  h.access_warp(sm, AccessKind::Load, a.addr, a.mask, 4);
}
void st(FunctionalHierarchy& h, Addr base, unsigned lanes = 32, std::uint32_t sm = 0) {
  Access a = words(base, lanes);
  h.access_warp(sm, AccessKind::Store, a.addr, a.mask, 4);
}
void atom(FunctionalHierarchy& h, Addr base, unsigned lanes = 1, std::uint32_t sm = 0) {
  Access a = words(base, lanes);
  h.access_warp(sm, AccessKind::Atomic, a.addr, a.mask, 4);
}

std::uint64_t l1(const FunctionalHierarchy& h, const char* n) {
  return h.total("l1d", n);
}
std::uint64_t l2(const FunctionalHierarchy& h, const char* n) {
  return h.total("l2", n);
}
std::uint64_t dram(const FunctionalHierarchy& h, const char* n) {
  return h.total("dram", n);
}

// A hand-built kernel: every warp of every CTA runs a fixed instruction list.
class ListStream final : public WarpStream {
 public:
  explicit ListStream(std::vector<WarpInst> v) : v_(std::move(v)) {}
  bool next(WarpInst& in) override {
    if (i_ >= v_.size()) return false;
    in = v_[i_++];
    return true;
  }

 private:
  std::vector<WarpInst> v_;
  std::size_t i_ = 0;
};

class ListKernel final : public Kernel {
 public:
  // prog[cta][warp] = instruction list
  ListKernel(std::uint32_t threads, std::vector<std::vector<std::vector<WarpInst>>> prog)
      : threads_(threads), prog_(std::move(prog)) {}
  std::string name() const override { return "list"; }
  Dim3 grid() const override { return {static_cast<std::uint32_t>(prog_.size()), 1, 1}; }
  Dim3 block() const override { return {threads_, 1, 1}; }
  const std::vector<DataStructure>& data() const override { return data_; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const override {
    return std::make_unique<ListStream>(prog_.at(cta).at(warp));
  }

 private:
  std::uint32_t threads_;
  std::vector<std::vector<std::vector<WarpInst>>> prog_;
  std::vector<DataStructure> data_;
};

WarpInst mem(WarpOp op, Addr base) {
  WarpInst in;
  in.op = op;
  Access a = words(base, 32);
  in.addr = a.addr;
  in.active_mask = a.mask;
  in.size = 4;
  return in;
}
WarpInst op(WarpOp o) {
  WarpInst in;
  in.op = o;
  return in;
}

}  // namespace

TEST_CASE("Functional hierarchy: L1 LRU hits and misses, L2 behind it", "[functional]") {
  FunctionalHierarchy h(tiny(), one_channel());
  ld(h, 0x000);  // L1 miss (set 0: A)            L2 miss, DRAM read 1
  ld(h, 0x000);  // L1 hit
  ld(h, 0x100);  // L1 miss (set 0: A, B)         L2 miss (L2 set 2), DRAM read 2
  ld(h, 0x000);  // L1 hit, A most recent
  ld(h, 0x200);  // L1 miss, evicts B (LRU)       L2 miss (L2 set 0: A, C), DRAM read 3
  ld(h, 0x100);  // L1 miss, evicts A             L2 hit (B still in L2 set 2)
  ld(h, 0x200);  // L1 hit
  CHECK(l1(h, "accesses") == 7);
  CHECK(l1(h, "hits") == 3);
  CHECK(l1(h, "misses") == 4);
  CHECK(l1(h, "evictions") == 2);
  CHECK(l1(h, "fills") == 4);
  CHECK(l1(h, "bypassed") == 0);
  CHECK(l2(h, "accesses") == 4);
  CHECK(l2(h, "hits") == 1);
  CHECK(l2(h, "misses") == 3);
  CHECK(l2(h, "writebacks") == 0);
  CHECK(dram(h, "reads") == 3);
  CHECK(dram(h, "writes") == 0);
  CHECK(h.total("sm", "global_mem_insts") == 7);
  CHECK(h.total("sm", "line_requests") == 7);
}

TEST_CASE("Functional hierarchy: write-evict store and L2 dirty write-back", "[functional]") {
  FunctionalHierarchy h(tiny(), one_channel());
  ld(h, 0x000);  // L1 miss, L2 miss (DRAM read 1)
  st(h, 0x000);  // L1: store, A present -> write-evict (eviction 1); L2 hit, A dirty
  ld(h, 0x000);  // L1 miss (A was evicted); L2 hit
  CHECK(l1(h, "accesses") == 3);
  CHECK(l1(h, "stores") == 1);
  CHECK(l1(h, "hits") == 0);
  CHECK(l1(h, "misses") == 2);
  CHECK(l1(h, "evictions") == 1);
  CHECK(l2(h, "accesses") == 3);
  CHECK(l2(h, "hits") == 2);
  CHECK(l2(h, "misses") == 1);
  CHECK(l2(h, "stores") == 1);
  // L2 set 0 holds dirty A; C (0x200) takes the second way, E (0x400) evicts A (LRU): one
  // write-back. In the L1 (set 0: A, C) E evicts A as well.
  ld(h, 0x200);  // L1 miss, L2 miss (DRAM read 2)
  ld(h, 0x400);  // L1 miss + eviction 2, L2 miss + write-back of A (DRAM read 3, write 1)
  CHECK(l1(h, "misses") == 4);
  CHECK(l1(h, "evictions") == 2);
  CHECK(l2(h, "misses") == 3);
  CHECK(l2(h, "evictions") == 1);
  CHECK(l2(h, "writebacks") == 1);
  CHECK(dram(h, "reads") == 3);
  CHECK(dram(h, "writes") == 1);
  // A store to an absent line does not allocate in the L1 and evicts nothing.
  st(h, 0x080);
  CHECK(l1(h, "evictions") == 2);
  CHECK(l1(h, "stores") == 2);
}

TEST_CASE("Functional hierarchy: l1d.write_hit=update keeps the stored line", "[functional]") {
  FunctionalConfig c = tiny();
  c.l1_store_hit_update = true;
  FunctionalHierarchy h(c, one_channel());
  ld(h, 0x000);  // L1 miss
  st(h, 0x000);  // store hit: the line stays
  ld(h, 0x000);  // L1 hit
  CHECK(l1(h, "stores") == 1);
  CHECK(l1(h, "evictions") == 0);
  CHECK(l1(h, "hits") == 1);
  CHECK(l1(h, "misses") == 1);
  atom(h, 0x000);  // atomics still evict
  ld(h, 0x000);
  CHECK(l1(h, "evictions") == 1);
  CHECK(l1(h, "misses") == 2);
}

TEST_CASE("Functional hierarchy: L2 write-allocate without fetch, fetch-on-write, atomics",
          "[functional]") {
  FunctionalHierarchy h(tiny(), one_channel());
  st(h, 0x080, 8);  // bytes 0..31 = L2 sector 0 fully covered: L2 miss, no DRAM read
  CHECK(l2(h, "misses") == 1);
  CHECK(dram(h, "reads") == 0);
  ld(h, 0x080, 8);  // L1 (unsectored) fetches the whole line: L2 sector miss on sectors 1-3
  CHECK(l2(h, "misses") == 2);
  CHECK(dram(h, "reads") == 1);
  st(h, 0x180, 1);  // 4 bytes of sector 0 of an absent line: fetch-on-write (DRAM read 2)
  CHECK(l2(h, "misses") == 3);
  CHECK(dram(h, "reads") == 2);
  atom(h, 0x180, 1);  // bypasses the L1, L2 hit on the fetched sector 0
  CHECK(l2(h, "hits") == 1);
  CHECK(l2(h, "atomics") == 1);
  CHECK(l2(h, "stores") == 2);
  CHECK(l2(h, "accesses") == 4);
  CHECK(l1(h, "accesses") == 4);
  CHECK(l1(h, "stores") == 2);
  CHECK(l1(h, "atomics") == 1);
  CHECK(l1(h, "misses") == 1);
  CHECK(l1(h, "hits") == 0);
  // The atomic also evicts a present L1 copy (write-evict).
  ld(h, 0x180, 1);  // L1 miss, L2 sector miss on sectors 1-3 (DRAM read 3)
  atom(h, 0x180, 1);
  CHECK(l1(h, "evictions") == 1);
  CHECK(dram(h, "reads") == 3);
}

TEST_CASE("Functional hierarchy: l1d disabled bypasses every load to the L2", "[functional]") {
  FunctionalHierarchy h(tiny(1, false), one_channel());
  ld(h, 0x000);     // bypassed; L2 miss on 4 sectors (DRAM read 1)
  ld(h, 0x000);     // bypassed; L2 hit
  ld(h, 0x100, 1);  // bypassed; only sector 0 requested: L2 miss (DRAM read 2)
  ld(h, 0x120, 1);  // bytes 32..35: sector 1, L2 sector miss (DRAM read 3)
  st(h, 0x000);     // counted as a store, nothing to evict
  CHECK(l1(h, "accesses") == 5);
  CHECK(l1(h, "bypassed") == 4);
  CHECK(l1(h, "hits") == 0);
  CHECK(l1(h, "misses") == 0);
  CHECK(l1(h, "evictions") == 0);
  CHECK(l2(h, "accesses") == 5);
  CHECK(l2(h, "hits") == 2);
  CHECK(l2(h, "misses") == 3);
  CHECK(dram(h, "reads") == 3);
}

TEST_CASE("Functional hierarchy: sectored L1 fetches only the sectors asked for", "[functional]") {
  FunctionalHierarchy h(tiny(1, true, 32), one_channel());
  ld(h, 0x000, 8);   // sector 0: L1 miss, L2 miss (DRAM read 1)
  ld(h, 0x020, 8);   // sector 1: L1 sector miss, L2 sector miss (DRAM read 2)
  ld(h, 0x000, 32);  // sectors 2-3 missing: L1 sector miss, L2 sector miss (DRAM read 3)
  ld(h, 0x000, 32);  // L1 hit
  CHECK(l1(h, "misses") == 3);
  CHECK(l1(h, "sector_misses") == 2);
  CHECK(l1(h, "hits") == 1);
  CHECK(l1(h, "evictions") == 0);
  CHECK(l2(h, "misses") == 3);
  CHECK(l2(h, "hits") == 0);
  CHECK(dram(h, "reads") == 3);
}

TEST_CASE("Functional hierarchy: barriers order the warps of a CTA", "[functional]") {
  // One CTA of 2 warps on one SM. Round-robin turns:
  //   1 w0 barrier (waits)   2 w1 ld 0x100 (miss)   3 w1 ld 0x200 (miss; w0 skipped)
  //   4 w1 barrier -> both released   5 w0 ld 0x000 (miss, evicts 0x100)   6 w1 ld 0x000 (hit)
  //   7 w0 exit   8 w1 exit
  std::vector<WarpInst> w0 = {op(WarpOp::Barrier), mem(WarpOp::Load, 0x000), op(WarpOp::Exit)};
  std::vector<WarpInst> w1 = {mem(WarpOp::Load, 0x100), mem(WarpOp::Load, 0x200),
                              op(WarpOp::Barrier), mem(WarpOp::Load, 0x000), op(WarpOp::Exit)};
  ListKernel k(64, {{w0, w1}});
  FunctionalHierarchy h(tiny(), one_channel());
  h.run_kernel(k);
  CHECK(l1(h, "accesses") == 4);
  CHECK(l1(h, "misses") == 3);
  CHECK(l1(h, "hits") == 1);
  CHECK(l1(h, "evictions") == 1);
  CHECK(h.total("sm", "warp_insts") == 8);
  CHECK(h.total("sm", "thread_insts") == 8 * 32);
  CHECK(h.total("sm", "ctas_completed") == 1);
}

TEST_CASE("Functional hierarchy: round-robin CTA placement and occupancy", "[functional]") {
  // 3 one-warp CTAs each load line 0x000. Two SMs: CTA0 -> SM0, CTA1 -> SM1, CTA2 -> SM0.
  // L1: SM0 misses then hits (CTA2), SM1 misses once. L2: first miss, then one hit.
  std::vector<WarpInst> w = {mem(WarpOp::Load, 0x000), op(WarpOp::Exit)};
  ListKernel k(32, {{w}, {w}, {w}});
  FunctionalHierarchy h(tiny(2), one_channel());
  h.run_kernel(k);
  CHECK(l1(h, "misses") == 2);
  CHECK(l1(h, "hits") == 1);
  CHECK(l2(h, "accesses") == 2);
  CHECK(l2(h, "hits") == 1);
  CHECK(h.total("sm", "ctas_completed") == 3);
  CHECK(h.l1(0).valid_lines() == 1);
  CHECK(h.l1(1).valid_lines() == 1);

  // Occupancy 1 CTA per SM (max_ctas = 1): every CTA still completes.
  FunctionalConfig c = tiny(1);
  c.resources.max_ctas = 1;
  FunctionalHierarchy h1(c, one_channel());
  h1.run_kernel(k);
  CHECK(h1.total("sm", "ctas_completed") == 3);
  CHECK(l1(h1, "misses") == 1);
  CHECK(l1(h1, "hits") == 2);
  h1.invalidate_l1s();
  CHECK(h1.l1(0).valid_lines() == 0);

  // A CTA that cannot fit is an error.
  c.resources.max_threads = 16;
  FunctionalHierarchy h2(c, one_channel());
  CHECK_THROWS_WITH(h2.run_kernel(k), Catch::Contains("more than sm.max_threads (16)"));
}

TEST_CASE("Functional hierarchy: configuration validation", "[functional]") {
  FunctionalConfig c = tiny();
  c.l2.line_bytes = 64;
  CHECK_THROWS_AS(FunctionalHierarchy(c, one_channel()), std::invalid_argument);
  c = tiny();
  c.num_sms = 0;
  CHECK_THROWS_AS(FunctionalHierarchy(c, one_channel()), std::invalid_argument);
}
