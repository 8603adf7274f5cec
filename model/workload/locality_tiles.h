// Tile geometry of the Locality Descriptor (seed 000 §3.3.3; rules R0.3-R0.6 and I-1 of
// ../shared/specs/seed000.md): which C-Tile a CTA is in, the order the compute-data map walks
// C-Tiles in, and which elements and bytes the k-th D-Tile covers (C-Tile k accesses D-Tile k).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/types.h"
#include "model/workload/kernel.h"

namespace locsim {

// The data structure's shape in elements: DataStructure::shape if set, else (I-1) rows of the
// descriptor's D-Tile width: (dtile_x, elements / dtile_x, 1).
LDim3 data_shape(const DataStructure& ds, const LocalityDescriptor& d);

// R0.5: the grid dimensions (0 = X, 1 = Y, 2 = Z) in the order the compute-data map traverses
// C-Tiles, rank 1 first; rank-0 dimensions are not traversed.
std::vector<int> map_order(const LDim3& map);

// Number of C-Tiles the map traverses (the product of the traversed dimensions' C-Tile counts).
std::uint64_t num_ctiles(const Dim3& grid, const LocalityDescriptor& d);
// Index k of the C-Tile holding linear CTA `cta` (x fastest) in the map's traversal order.
std::uint64_t ctile_index(const Dim3& grid, const LocalityDescriptor& d, std::uint32_t cta);

// R0.4: D-Tiles enumerated X->Y->Z over the data shape; D-Tile k as the element box [lo, hi).
struct ElementBox {
  LDim3 lo, hi;
};
std::uint64_t num_dtiles(const DataStructure& ds, const LocalityDescriptor& d);
ElementBox dtile_box(const DataStructure& ds, const LocalityDescriptor& d, std::uint64_t k);
// The byte ranges [first, last) of D-Tile k, one per contiguous run of elements, in address
// order (adjacent runs merged).
std::vector<std::pair<Addr, Addr>> dtile_bytes(const DataStructure& ds, const LocalityDescriptor& d,
                                               std::uint64_t k);

// R0.5/R0.6 consistency of a descriptor with its kernel: "" when valid, else why not (a
// traversed-out dimension with several C-Tiles, more C-Tiles than D-Tiles, a shape that does
// not cover the structure's bytes).
std::string check_tiles(const Dim3& grid, const DataStructure& ds, const LocalityDescriptor& d);

}  // namespace locsim
