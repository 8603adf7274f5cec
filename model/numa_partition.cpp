#include "model/numa_partition.h"

#include <algorithm>

#include "model/numa_zone.h"
#include "model/workload/locality_tiles.h"

namespace locsim {

namespace {

bool aligned(const NumaTileMap& m, unsigned b, unsigned n) {
  return m.base % (Addr{1} << (b + n)) == 0;
}

std::vector<std::uint32_t> tile_zone_bytes_argmax(const NumaTileMap& m, unsigned b,
                                                  std::uint32_t zones) {
  std::vector<std::uint32_t> z(m.num_tiles(), 0);
  for (std::uint32_t k = 0; k < m.num_tiles(); ++k) {
    std::vector<std::uint64_t> sum(zones, 0);
    for (const auto& r : m.tile_bytes[k]) {
      const auto zb = zone_bytes(r.first, r.second, b, zones);
      for (std::uint32_t i = 0; i < zones; ++i) sum[i] += zb[i];
    }
    z[k] = static_cast<std::uint32_t>(std::max_element(sum.begin(), sum.end()) - sum.begin());
  }
  return z;
}

bool balanced(const std::vector<std::uint32_t>& cta_zone, std::uint32_t zones, double epsilon) {
  std::vector<std::uint64_t> n(zones, 0);
  for (std::uint32_t z : cta_zone) ++n[z];
  const double limit = (1.0 + epsilon) * double(cta_zone.size()) / double(zones);
  return std::all_of(n.begin(), n.end(), [&](std::uint64_t v) { return double(v) <= limit; });
}

// The best start bit of map m given the CTA partition, and its weighted utility.
std::pair<unsigned, double> best_bit(const NumaTileMap& m, const std::vector<std::uint32_t>& part,
                                     std::uint32_t zones, unsigned n, double weight) {
  unsigned bit = kNumaMinStartBit;
  double best = 0.0;
  for (unsigned b = kNumaMinStartBit; b <= kNumaMaxStartBit; ++b) {
    if (!aligned(m, b, n)) continue;
    const double u = weight * local_fraction(m, part, b, zones);
    if (u > best) {
      best = u;
      bit = b;
    }
  }
  return {bit, best};
}

}  // namespace

std::vector<std::uint64_t> zone_bytes(Addr first, Addr last, unsigned b, std::uint32_t zones) {
  std::vector<std::uint64_t> zb(zones, 0);
  const Addr chunk = Addr{1} << b, cycle = chunk * zones;
  Addr c = first;
  while (c < last) {
    // Whole cycles of Z chunks put the same bytes in every zone.
    if (c % cycle == 0 && last - c >= cycle) {
      const Addr full = (last - c) / cycle;
      for (auto& v : zb) v += full * chunk;
      c += full * cycle;
      continue;
    }
    const Addr next = std::min(last, (c / chunk + 1) * chunk);
    zb[zone_at_bit(c, b, zones)] += next - c;
    c = next;
  }
  return zb;
}

std::vector<NumaTileMap> numa_tile_maps(const Kernel& k) {
  struct Cand {
    NumaTileMap m;
    std::size_t order;
  };
  std::vector<Cand> v;
  const Dim3 grid = k.grid();
  const std::uint32_t ctas = k.num_ctas(), threads = k.threads_per_cta();
  for (const DataStructure& ds : k.data())
    for (const LocalityDescriptor& d : ds.locality) {
      NumaTileMap m;
      m.name = ds.name;
      m.base = ds.base;
      m.bytes = ds.bytes;
      m.priority = d.priority;
      m.cta_tile.assign(ctas, NumaTileMap::kNoTile);
      if (d.type == LocalityType::InterThread) {
        if (!check_tiles(grid, ds, d).empty()) continue;
        const std::uint64_t nd = num_dtiles(ds, d);
        for (std::uint32_t c = 0; c < ctas; ++c) {
          const std::uint64_t t = ctile_index(grid, d, c);
          if (t < nd) m.cta_tile[c] = static_cast<std::uint32_t>(t);
        }
        m.tile_bytes.resize(std::min<std::uint64_t>(nd, num_ctiles(grid, d)));
        for (std::uint64_t t = 0; t < m.tile_bytes.size(); ++t)
          m.tile_bytes[t] = dtile_bytes(ds, d, t);
      } else if (d.type == LocalityType::IntraThread) {
        const std::uint64_t per_thread = std::uint64_t{d.tile.data_tile.x} * d.tile.data_tile.y *
                                         d.tile.data_tile.z * ds.elem_bytes;
        const std::uint64_t per_cta = per_thread * threads;
        if (per_cta == 0) continue;
        for (std::uint32_t c = 0; c < ctas; ++c) {
          const Addr first = ds.base + per_cta * c;
          if (first >= ds.base + ds.bytes) break;
          m.cta_tile[c] = c;
          m.tile_bytes.push_back({{first, std::min<Addr>(first + per_cta, ds.base + ds.bytes)}});
        }
        if (m.tile_bytes.empty()) continue;
      } else {
        continue;
      }
      v.push_back({std::move(m), v.size()});
    }
  std::stable_sort(v.begin(), v.end(),
                   [](const Cand& a, const Cand& b) { return a.m.priority > b.m.priority; });
  std::vector<NumaTileMap> out;
  for (auto& c : v) out.push_back(std::move(c.m));
  return out;
}

std::vector<std::uint32_t> contiguous_partition(std::uint32_t num_ctas, std::uint32_t zones) {
  std::vector<std::uint32_t> z(num_ctas);
  for (std::uint32_t c = 0; c < num_ctas; ++c)
    z[c] =
        static_cast<std::uint32_t>(std::uint64_t{c} * zones / std::max<std::uint32_t>(1, num_ctas));
  return z;
}

std::vector<std::uint32_t> numa_part(const NumaTileMap& m, unsigned b, std::uint32_t zones) {
  const std::vector<std::uint32_t> tz = tile_zone_bytes_argmax(m, b, zones);
  std::vector<std::uint32_t> z =
      contiguous_partition(static_cast<std::uint32_t>(m.cta_tile.size()), zones);
  for (std::size_t c = 0; c < m.cta_tile.size(); ++c)
    if (m.cta_tile[c] != NumaTileMap::kNoTile) z[c] = tz[m.cta_tile[c]];
  return z;
}

double local_fraction(const NumaTileMap& m, const std::vector<std::uint32_t>& cta_zone, unsigned b,
                      std::uint32_t zones) {
  // Share of each C-Tile's CTAs per zone.
  std::vector<std::vector<double>> share(m.num_tiles(), std::vector<double>(zones, 0.0));
  std::vector<std::uint64_t> size(m.num_tiles(), 0);
  for (std::size_t c = 0; c < m.cta_tile.size(); ++c)
    if (m.cta_tile[c] != NumaTileMap::kNoTile && m.cta_tile[c] < m.num_tiles()) {
      share[m.cta_tile[c]][cta_zone.at(c)] += 1.0;
      ++size[m.cta_tile[c]];
    }
  double local = 0.0, total = 0.0;
  for (std::uint32_t k = 0; k < m.num_tiles(); ++k) {
    std::vector<std::uint64_t> sum(zones, 0);
    for (const auto& r : m.tile_bytes[k]) {
      const auto zb = zone_bytes(r.first, r.second, b, zones);
      for (std::uint32_t i = 0; i < zones; ++i) sum[i] += zb[i];
    }
    for (std::uint32_t i = 0; i < zones; ++i) {
      total += double(sum[i]);
      if (size[k]) local += double(sum[i]) * share[k][i] / double(size[k]);
    }
  }
  return total > 0 ? local / total : 0.0;
}

NumaPlan plan_numa(const std::vector<NumaTileMap>& maps, std::uint32_t num_ctas,
                   std::uint32_t zones, double epsilon) {
  const unsigned n = numa_zone_bits(zones);
  const double N = double(maps.size());
  NumaPlan plan;
  plan.start_bit.assign(maps.size(), kNumaMinStartBit);
  for (std::size_t d = 0; d < maps.size(); ++d) {
    if (maps[d].num_tiles() < zones) continue;  // R8.3: cannot drive, stays interleaved
    bool found = false;
    for (unsigned b_hi = kNumaMinStartBit; b_hi <= kNumaMaxStartBit; ++b_hi) {
      if (!aligned(maps[d], b_hi, n)) continue;
      std::vector<std::uint32_t> part = numa_part(maps[d], b_hi, zones);
      part.resize(num_ctas, 0);
      if (!balanced(part, zones, epsilon)) continue;
      double util = (N - double(d)) * local_fraction(maps[d], part, b_hi, zones);
      std::vector<unsigned> bits(maps.size(), kNumaMinStartBit);
      bits[d] = b_hi;
      for (std::size_t i = d + 1; i < maps.size(); ++i) {
        const auto [bit, u] = best_bit(maps[i], part, zones, n, N - double(i));
        bits[i] = bit;
        util += u;
      }
      if (!found || util > plan.util) {
        found = true;
        plan.util = util;
        plan.cta_zone = std::move(part);
        plan.start_bit = std::move(bits);
        plan.driver = static_cast<int>(d);
      }
    }
    if (found) return plan;
  }
  // No driver: the contiguous split, and each structure's best bit for it.
  plan.cta_zone = contiguous_partition(num_ctas, zones);
  plan.driver = -1;
  plan.util = 0.0;
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const auto [bit, u] = best_bit(maps[i], plan.cta_zone, zones, n, N - double(i));
    plan.start_bit[i] = bit;
    plan.util += u;
  }
  return plan;
}

}  // namespace locsim
