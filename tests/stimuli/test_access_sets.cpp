// Per-CTA access sets: exact line sets and byte counts for vecadd and matmul.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "model/workload/access_sets.h"
#include "stimuli/workload_registry.h"

using namespace locsim;

TEST_CASE("Access sets: vecadd CTAs touch disjoint lines", "[access_sets]") {
  // n = 1024 floats, 256 threads per CTA: 4 CTAs. Each CTA reads 256 floats of A and of B and
  // writes 256 of C: 1 KiB = 8 lines of 128 B per array, 24 lines, 2048 B read, 1024 B written.
  auto w = make_workload("vecadd", {{"n", "1024"}});
  const Kernel& k = *w->kernels().front();
  const KernelAccessSets s = compute_access_sets(k);
  REQUIRE(s.num_ctas() == 4);
  REQUIRE(s.ds_names.size() == 4);
  CHECK(s.ds_names[0] == "A");
  CHECK(s.ds_names[3] == "unknown");
  for (std::uint32_t c = 0; c < 4; ++c) {
    for (std::size_t d = 0; d < 3; ++d) {
      CHECK(s.ctas[c].ds[d].lines.size() == 8);
      // The lines are consecutive, starting at base + c KiB.
      CHECK(s.ctas[c].ds[d].lines.front() == k.data()[d].base + 1024 * c);
      CHECK(s.ctas[c].ds[d].lines.back() == k.data()[d].base + 1024 * c + 7 * 128);
    }
    CHECK(s.ctas[c].ds[0].read_bytes == 1024);
    CHECK(s.ctas[c].ds[1].read_bytes == 1024);
    CHECK(s.ctas[c].ds[2].read_bytes == 0);
    CHECK(s.ctas[c].ds[2].write_bytes == 1024);
    CHECK(s.ctas[c].ds[3].lines.empty());
    CHECK(s.ctas[c].lines() == 24);
    CHECK(s.ctas[c].read_bytes() == 2048);
    CHECK(s.ctas[c].write_bytes() == 1024);
  }
  for (std::uint32_t a = 0; a < 4; ++a)
    for (std::uint32_t b = 0; b < 4; ++b) CHECK(s.shared_lines(a, b) == (a == b ? 24u : 0u));
  CHECK(s.footprint_lines() == 96);
  CHECK(s.total_cta_lines() == 96);
  CHECK(s.footprint_bytes() == 96 * 128);
  CHECK(s.footprint_lines(2) == 32);
  CHECK(s.total_read_bytes() == 4 * 2048);
  CHECK(s.total_write_bytes() == 4 * 1024);
  CHECK(s.memory_bytes() >= 96 * sizeof(Addr));

  // 32 B lines: four times as many lines, same bytes.
  const KernelAccessSets s32 = compute_access_sets(k, AccessSetOptions{32});
  CHECK(s32.ctas[1].lines() == 96);
  CHECK(s32.footprint_lines() == 384);
  CHECK(s32.total_read_bytes() == 4 * 2048);
  CHECK_THROWS_AS(compute_access_sets(k, AccessSetOptions{96}), std::invalid_argument);
}

TEST_CASE("Access sets: matmul CTAs of a block row share the A row band", "[access_sets]") {
  // n = 64: grid 4 x 4 CTAs of 16 x 16 threads, CTA id = by * 4 + bx. A row is 64 floats = 256 B
  // = 2 lines. CTA (bx, by) reads
  //   A rows 16by..16by+15, all 64 columns          -> 16 rows x 2 lines = 32 lines
  //   B all 64 rows, columns 16bx..16bx+15 (64 B)    -> 64 rows x 1 line  = 64 lines (line bx/2)
  // and writes C rows 16by.., columns 16bx.. (64 B)  -> 16 rows x 1 line  = 16 lines
  // Reads: 4 tiles x 256 threads x 4 B = 4096 B of A and of B; writes 256 x 4 B = 1024 B of C.
  auto w = make_workload("matmul", {{"n", "64"}});
  const Kernel& k = *w->kernels().front();
  const KernelAccessSets s = compute_access_sets(k);
  REQUIRE(s.num_ctas() == 16);
  auto id = [](std::uint32_t bx, std::uint32_t by) { return by * 4 + bx; };
  for (std::uint32_t c = 0; c < 16; ++c) {
    CHECK(s.ctas[c].ds[0].lines.size() == 32);
    CHECK(s.ctas[c].ds[1].lines.size() == 64);
    CHECK(s.ctas[c].ds[2].lines.size() == 16);
    CHECK(s.ctas[c].ds[0].read_bytes == 4096);
    CHECK(s.ctas[c].ds[1].read_bytes == 4096);
    CHECK(s.ctas[c].ds[2].write_bytes == 1024);
    CHECK(s.ctas[c].ds[3].lines.empty());
  }
  // Same block row, B columns in different lines (bx 0 vs 2): exactly the 32 A lines.
  CHECK(s.shared_lines(id(0, 0), id(2, 0)) == 32);
  CHECK(s.shared_lines(id(0, 0), id(2, 0), 0) == 32);
  CHECK(s.shared_lines(id(1, 3), id(3, 3)) == 32);
  // Same block row, bx 0 and 1: their 64 B column strips of B and C lie in the same 128 B lines.
  CHECK(s.shared_lines(id(0, 0), id(1, 0)) == 32 + 64 + 16);
  // Same block column, different block rows: the 64 B lines of B only.
  CHECK(s.shared_lines(id(0, 0), id(0, 2)) == 64);
  CHECK(s.shared_lines(id(0, 0), id(0, 2), 1) == 64);
  // Different row and B line: nothing.
  CHECK(s.shared_lines(id(0, 0), id(2, 1)) == 0);
  // Each matrix is 64 x 64 x 4 B = 16 KiB = 128 lines, all touched.
  CHECK(s.footprint_lines() == 3 * 128);
  CHECK(s.footprint_lines(0) == 128);
  CHECK(s.total_cta_lines() == 16 * 112);
}

TEST_CASE("Access sets: the lazy per-CTA provider computes only what is asked, same sets",
          "[access_sets]") {
  auto w = make_workload("matmul", {{"n", "64"}});
  const Kernel& k = *w->kernels().front();
  for (std::uint32_t line : {128u, 32u}) {
    const KernelAccessSets all = compute_access_sets(k, {line});
    LazyCtaAccessSets lazy(k, {line});
    CHECK(lazy.computed() == 0);
    CHECK(lazy.line_bytes() == line);
    CHECK(lazy.ds_names() == all.ds_names);
    // Out of order, and twice: each CTA is computed once.
    for (std::uint32_t c : {5u, 0u, 5u, 15u}) {
      const CtaAccessSet& s = lazy.cta(c);
      REQUIRE(s.ds.size() == all.ctas[c].ds.size());
      for (std::size_t d = 0; d < s.ds.size(); ++d) {
        CHECK(s.ds[d].lines == all.ctas[c].ds[d].lines);
        CHECK(s.ds[d].read_bytes == all.ctas[c].ds[d].read_bytes);
        CHECK(s.ds[d].write_bytes == all.ctas[c].ds[d].write_bytes);
      }
    }
    CHECK(lazy.computed() == 3);
    CHECK_THROWS_AS(lazy.cta(k.num_ctas()), std::out_of_range);
  }
  CHECK_THROWS_AS(LazyCtaAccessSets(k, {96}), std::invalid_argument);
}
