#include "model/numa_partition.h"

#include <algorithm>

#include "model/numa_zone.h"
#include "model/workload/locality_tiles.h"

namespace locsim {

namespace {

bool aligned(const NumaTileMap& m, unsigned b, unsigned n) {
  if (b == kNumaPageStartBit) return m.base % kNumaPageBytes == 0;
  return m.base % (Addr{1} << (b + n)) == 0;
}

// Per C-Tile: the share of its CTAs in each zone, and its CTA count.
void tile_shares(const NumaTileMap& m, const std::vector<std::uint32_t>& cta_zone,
                 std::uint32_t zones, std::vector<std::vector<double>>& share,
                 std::vector<std::uint64_t>& size) {
  share.assign(m.num_tiles(), std::vector<double>(zones, 0.0));
  size.assign(m.num_tiles(), 0);
  for (std::size_t c = 0; c < m.cta_tile.size(); ++c)
    if (m.cta_tile[c] != NumaTileMap::kNoTile && m.cta_tile[c] < m.num_tiles()) {
      share[m.cta_tile[c]][cta_zone.at(c)] += 1.0;
      ++size[m.cta_tile[c]];
    }
}

// Bytes of D-Tile k in each zone under placement `b` (page_zone used for kNumaPageStartBit).
std::vector<std::uint64_t> tile_zone_bytes(const NumaTileMap& m, std::uint32_t k, unsigned b,
                                           std::uint32_t zones,
                                           const std::vector<std::uint32_t>& page_zone) {
  std::vector<std::uint64_t> sum(zones, 0);
  for (const auto& r : m.tile_bytes[k]) {
    if (b != kNumaPageStartBit) {
      const auto zb = zone_bytes(r.first, r.second, b, zones);
      for (std::uint32_t i = 0; i < zones; ++i) sum[i] += zb[i];
      continue;
    }
    for (Addr a = r.first; a < r.second;) {
      const Addr next = std::min<Addr>(r.second, (a / kNumaPageBytes + 1) * kNumaPageBytes);
      sum[page_zone[(a - m.base) / kNumaPageBytes]] += next - a;
      a = next;
    }
  }
  return sum;
}

std::vector<std::uint32_t> tile_zone_bytes_argmax(const NumaTileMap& m, unsigned b,
                                                  std::uint32_t zones) {
  std::vector<std::uint32_t> z(m.num_tiles(), 0);
  if (b == kNumaPageStartBit) {
    // The data follows the CTAs: C-Tiles split into Z contiguous, equal groups.
    for (std::uint32_t k = 0; k < m.num_tiles(); ++k)
      z[k] = static_cast<std::uint32_t>(std::uint64_t{k} * zones / m.num_tiles());
    return z;
  }
  for (std::uint32_t k = 0; k < m.num_tiles(); ++k) {
    const std::vector<std::uint64_t> sum = tile_zone_bytes(m, k, b, zones, {});
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
  for (unsigned b = kNumaMinStartBit; b <= kNumaPageStartBit; ++b) {
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
      const bool tiled_no_reuse =
          d.type == LocalityType::NoReuse &&
          !(d.tile.data_tile.x == 1 && d.tile.data_tile.y == 1 && d.tile.data_tile.z == 1);
      if (d.type == LocalityType::InterThread || tiled_no_reuse) {
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

std::vector<std::uint32_t> page_zones(const NumaTileMap& m,
                                      const std::vector<std::uint32_t>& cta_zone,
                                      std::uint32_t zones) {
  std::vector<std::vector<double>> share;
  std::vector<std::uint64_t> size;
  tile_shares(m, cta_zone, zones, share, size);
  const std::uint64_t pages = (m.bytes + kNumaPageBytes - 1) / kNumaPageBytes;
  std::vector<std::vector<double>> w(pages, std::vector<double>(zones, 0.0));
  for (std::uint32_t k = 0; k < m.num_tiles(); ++k) {
    if (!size[k]) continue;
    for (const auto& r : m.tile_bytes[k])
      for (Addr a = r.first; a < r.second;) {
        const Addr next = std::min<Addr>(r.second, (a / kNumaPageBytes + 1) * kNumaPageBytes);
        const std::uint64_t p = (a - m.base) / kNumaPageBytes;
        for (std::uint32_t z = 0; z < zones; ++z)
          w[p][z] += double(next - a) * share[k][z] / double(size[k]);
        a = next;
      }
  }
  std::vector<std::uint32_t> out(pages);
  for (std::uint64_t p = 0; p < pages; ++p) {
    const auto it = std::max_element(w[p].begin(), w[p].end());
    out[p] = *it > 0.0 ? static_cast<std::uint32_t>(it - w[p].begin())
                       : static_cast<std::uint32_t>(p % zones);
  }
  return out;
}

double local_fraction(const NumaTileMap& m, const std::vector<std::uint32_t>& cta_zone, unsigned b,
                      std::uint32_t zones) {
  std::vector<std::vector<double>> share;
  std::vector<std::uint64_t> size;
  tile_shares(m, cta_zone, zones, share, size);
  const std::vector<std::uint32_t> pz =
      b == kNumaPageStartBit ? page_zones(m, cta_zone, zones) : std::vector<std::uint32_t>{};
  double local = 0.0, total = 0.0;
  for (std::uint32_t k = 0; k < m.num_tiles(); ++k) {
    const std::vector<std::uint64_t> sum = tile_zone_bytes(m, k, b, zones, pz);
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
    for (unsigned b_hi = kNumaMinStartBit; b_hi <= kNumaPageStartBit; ++b_hi) {
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
