#include "model/workload/locality_tiles.h"

#include <algorithm>

namespace locsim {

namespace {

std::uint32_t at(const LDim3& d, int i) {
  return i == 0 ? d.x : i == 1 ? d.y : d.z;
}
std::uint32_t at(const Dim3& d, int i) {
  return i == 0 ? d.x : i == 1 ? d.y : d.z;
}
std::uint32_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}
// C-Tile extent per grid dimension: 0 or wider than the grid spans it.
std::uint32_t ctile_extent(const Dim3& grid, const LocalityDescriptor& d, int i) {
  const std::uint32_t g = std::max<std::uint32_t>(1, at(grid, i)), t = at(d.tile.compute_tile, i);
  return t == 0 || t > g ? g : t;
}
std::uint32_t ctiles_along(const Dim3& grid, const LocalityDescriptor& d, int i) {
  return ceil_div(std::max<std::uint32_t>(1, at(grid, i)), ctile_extent(grid, d, i));
}
std::uint32_t dtile_extent(const LDim3& shape, const LocalityDescriptor& d, int i) {
  const std::uint32_t s = std::max<std::uint32_t>(1, at(shape, i)), t = at(d.tile.data_tile, i);
  return t == 0 || t > s ? s : t;
}

}  // namespace

LDim3 data_shape(const DataStructure& ds, const LocalityDescriptor& d) {
  if (ds.shape.x && ds.shape.y && ds.shape.z) return ds.shape;
  const std::uint64_t elems = ds.bytes / std::max<std::uint32_t>(1, ds.elem_bytes);
  const std::uint32_t w = std::max<std::uint32_t>(1, d.tile.data_tile.x);
  return {w, std::max<std::uint32_t>(1, ceil_div(elems, w)), 1};
}

std::vector<int> map_order(const LDim3& map) {
  std::vector<int> order;
  for (std::uint32_t rank = 1; rank <= 3; ++rank)
    for (int i = 0; i < 3; ++i)
      if (at(map, i) == rank) order.push_back(i);
  return order;
}

std::uint64_t num_ctiles(const Dim3& grid, const LocalityDescriptor& d) {
  std::uint64_t n = 1;
  for (int i : map_order(d.tile.compute_data_map)) n *= ctiles_along(grid, d, i);
  return n;
}

std::uint64_t ctile_index(const Dim3& grid, const LocalityDescriptor& d, std::uint32_t cta) {
  const std::uint32_t pos[3] = {cta % grid.x, cta / grid.x % grid.y, cta / grid.x / grid.y};
  std::uint64_t k = 0, scale = 1;
  for (int i : map_order(d.tile.compute_data_map)) {
    k += scale * (pos[i] / ctile_extent(grid, d, i));
    scale *= ctiles_along(grid, d, i);
  }
  return k;
}

std::uint64_t num_dtiles(const DataStructure& ds, const LocalityDescriptor& d) {
  const LDim3 s = data_shape(ds, d);
  std::uint64_t n = 1;
  for (int i = 0; i < 3; ++i)
    n *= ceil_div(std::max<std::uint32_t>(1, at(s, i)), dtile_extent(s, d, i));
  return n;
}

ElementBox dtile_box(const DataStructure& ds, const LocalityDescriptor& d, std::uint64_t k) {
  const LDim3 s = data_shape(ds, d);
  ElementBox b;
  std::uint32_t* lo[3] = {&b.lo.x, &b.lo.y, &b.lo.z};
  std::uint32_t* hi[3] = {&b.hi.x, &b.hi.y, &b.hi.z};
  for (int i = 0; i < 3; ++i) {
    const std::uint32_t ext = dtile_extent(s, d, i), size = std::max<std::uint32_t>(1, at(s, i));
    const std::uint32_t n = ceil_div(size, ext);
    const std::uint32_t idx = static_cast<std::uint32_t>(k % n);
    k /= n;
    *lo[i] = idx * ext;
    *hi[i] = std::min(size, (idx + 1) * ext);
  }
  return b;
}

std::vector<std::pair<Addr, Addr>> dtile_bytes(const DataStructure& ds, const LocalityDescriptor& d,
                                               std::uint64_t k) {
  const LDim3 s = data_shape(ds, d);
  const ElementBox b = dtile_box(ds, d, k);
  std::vector<std::pair<Addr, Addr>> out;
  const std::uint64_t eb = ds.elem_bytes, end = ds.base + ds.bytes;
  for (std::uint32_t z = b.lo.z; z < b.hi.z; ++z)
    for (std::uint32_t y = b.lo.y; y < b.hi.y; ++y) {
      const std::uint64_t row = (std::uint64_t{z} * s.y + y) * s.x;
      const Addr first = ds.base + (row + b.lo.x) * eb;
      const Addr last = std::min<Addr>(end, ds.base + (row + b.hi.x) * eb);
      if (first >= last) continue;
      if (!out.empty() && out.back().second == first)
        out.back().second = last;
      else
        out.emplace_back(first, last);
    }
  return out;
}

std::string check_tiles(const Dim3& grid, const DataStructure& ds, const LocalityDescriptor& d) {
  if (d.type != LocalityType::InterThread) return "";
  const LDim3& m = d.tile.compute_data_map;
  for (int i = 0; i < 3; ++i)
    if (at(m, i) == 0 && ctiles_along(grid, d, i) > 1)
      return "dimension " + std::string(1, "XYZ"[i]) + " is not traversed by the map but has " +
             std::to_string(ctiles_along(grid, d, i)) + " C-Tiles";
  const LDim3 s = data_shape(ds, d);
  const std::uint64_t covered = std::uint64_t{s.x} * s.y * s.z * ds.elem_bytes;
  if (covered < ds.bytes)
    return "shape covers " + std::to_string(covered) + " of " + std::to_string(ds.bytes) + " bytes";
  if (num_ctiles(grid, d) > num_dtiles(ds, d))
    return std::to_string(num_ctiles(grid, d)) + " C-Tiles but only " +
           std::to_string(num_dtiles(ds, d)) + " D-Tiles";
  return "";
}

}  // namespace locsim
