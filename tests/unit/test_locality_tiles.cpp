// Seed 000 §3.3.3 tile geometry (R0.3-R0.5, I-1): C-Tile order under the compute-data map,
// D-Tile boxes and bytes over the data shape. No SystemC.
#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "model/workload/locality_tiles.h"

using namespace locsim;

namespace {
LocalityDescriptor desc(LDim3 dtile, LDim3 ctile, LDim3 map) {
  return inter_thread(SharingType::CoAccessed, AccessPattern::Regular, dtile, ctile, map, 1);
}
using Ranges = std::vector<std::pair<Addr, Addr>>;
}  // namespace

TEST_CASE("locality tiles: the map's ranks give the C-Tile traversal order (R0.5)", "[ldesc]") {
  CHECK(map_order({3, 1, 2}) == std::vector<int>{1, 2, 0});  // Y -> Z -> X
  CHECK(map_order({1, 0, 0}) == std::vector<int>{0});        // histo: along X only
  CHECK(map_order({0, 0, 0}).empty());                       // one C-Tile for the grid
  // Grid (4,2,2), C-Tiles of one CTA, map (3,1,2): k = y + 2*z + 4*x.
  const LocalityDescriptor d = desc({1, 1, 1}, {1, 1, 1}, {3, 1, 2});
  const Dim3 g{4, 2, 2};
  CHECK(num_ctiles(g, d) == 16);
  CHECK(ctile_index(g, d, 0) == 0);
  CHECK(ctile_index(g, d, 4) == 1);    // (0,1,0)
  CHECK(ctile_index(g, d, 8) == 2);    // (0,0,1)
  CHECK(ctile_index(g, d, 1) == 4);    // (1,0,0)
  CHECK(ctile_index(g, d, 15) == 15);  // (3,1,1)
  // Map (0,0,0) with a whole-grid C-Tile: every CTA in C-Tile 0.
  const LocalityDescriptor w = desc({8, 8, 1}, {0, 0, 0}, {0, 0, 0});
  CHECK(num_ctiles(g, w) == 1);
  CHECK(ctile_index(g, w, 13) == 0);
}

TEST_CASE("locality tiles: matmul's A row bands and B column bands (R0.4, I-1)", "[ldesc]") {
  // n = 64, 16x16 blocks, grid 4x4. A: D-Tile (64,16) rows, C-Tile a block row (4,1), map
  // (0,1,0). B: D-Tile (16,64) columns, C-Tile a block column (1,4), map (1,0,0); B needs its
  // shape, the default (rows of 16 elements) would cut it into rows.
  const Dim3 g{4, 4, 1};
  DataStructure A{"A", 0x10000, 64 * 64 * 4, 4, {desc({64, 16, 1}, {4, 1, 1}, {0, 1, 0})}};
  DataStructure B{"B", 0x20000, 64 * 64 * 4, 4, {desc({16, 64, 1}, {1, 4, 1}, {1, 0, 0})}};
  const LocalityDescriptor& a = A.locality[0];
  const LocalityDescriptor& b = B.locality[0];
  CHECK(num_ctiles(g, a) == 4);
  CHECK(ctile_index(g, a, 9) == 2);  // CTA (1,2): block row 2
  CHECK(num_dtiles(A, a) == 4);
  CHECK(dtile_bytes(A, a, 2) == Ranges{{0x10000 + 32 * 64 * 4, 0x10000 + 48 * 64 * 4}});
  B.shape = {64, 64, 1};
  CHECK(ctile_index(g, b, 9) == 1);  // block column 1
  CHECK(num_dtiles(B, b) == 4);
  const ElementBox box = dtile_box(B, b, 1);
  CHECK(box.lo.x == 16);
  CHECK(box.hi.x == 32);
  CHECK(box.hi.y == 64);
  const Ranges r = dtile_bytes(B, b, 1);
  REQUIRE(r.size() == 64);  // one 64-byte run per row
  CHECK(r[0] == std::make_pair(Addr{0x20000 + 64}, Addr{0x20000 + 128}));
  CHECK(r[63].first == 0x20000 + 63 * 256 + 64);
  CHECK(check_tiles(g, A, a).empty());
  CHECK(check_tiles(g, B, b).empty());
  // Without the shape (I-1's default: rows of 16 elements) B's four D-Tiles would be its four
  // contiguous quarters, not column bands: workloads with column bands set the shape.
  B.shape = {0, 0, 0};
  CHECK(num_dtiles(B, b) == 4);
  CHECK(dtile_bytes(B, b, 1) == Ranges{{0x20000 + 4096, 0x20000 + 8192}});
}

TEST_CASE("locality tiles: inconsistent descriptors are named", "[ldesc]") {
  const Dim3 g{4, 4, 1};
  DataStructure s{"S", 0, 64 * 64 * 4, 4, {desc({64, 16, 1}, {4, 1, 1}, {1, 0, 0})}};
  // Y is not traversed by the map (1,0,0) but has 4 C-Tiles.
  CHECK(check_tiles(g, s, s.locality[0]).find("dimension Y") == 0);
  s.shape = {8, 8, 1};
  s.locality[0] = desc({8, 8, 1}, {1, 1, 1}, {1, 2, 0});
  CHECK(check_tiles(g, s, s.locality[0]).find("shape covers 256 of 16384 bytes") == 0);
  s.shape = {64, 64, 1};
  s.locality[0] = desc({64, 64, 1}, {1, 1, 1}, {1, 2, 0});
  CHECK(check_tiles(g, s, s.locality[0]) == "16 C-Tiles but only 1 D-Tiles");
}
