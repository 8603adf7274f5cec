#include "model/ldesc_selection.h"

#include "model/params.h"

namespace locsim {

LDescMode parse_ldesc_mode(const std::string& s) {
  if (s == "off") return LDescMode::Off;
  if (s == "sched") return LDescMode::Sched;
  if (s == "pref") return LDescMode::Pref;
  if (s == "cache") return LDescMode::Cache;
  if (s == "all") return LDescMode::All;
  throw ConfigError("key 'ldesc.mode': '" + s + "' is not one of off, sched, pref, cache, all");
}

const char* to_string(LDescMode m) {
  switch (m) {
    case LDescMode::Off:
      return "off";
    case LDescMode::Sched:
      return "sched";
    case LDescMode::Pref:
      return "pref";
    case LDescMode::Cache:
      return "cache";
    case LDescMode::All:
      return "all";
  }
  return "?";
}

const LocalityDescriptor* governing_descriptor(const DataStructure& ds) {
  const LocalityDescriptor* best = nullptr;
  for (const LocalityDescriptor& d : ds.locality)
    if (!best || d.priority > best->priority) best = &d;
  return best;
}

std::vector<DsTreatment> select_techniques(const Kernel& k, LDescMode mode) {
  std::vector<DsTreatment> out;
  for (const DataStructure& ds : k.data()) {
    DsTreatment t;
    t.base = ds.base;
    t.bytes = ds.bytes;
    const LocalityDescriptor* d = governing_descriptor(ds);
    t.descriptor = d;
    if (d) {
      switch (d->type) {
        case LocalityType::NoReuse:
          t.bypass = ldesc_caches(mode);
          break;
        case LocalityType::IntraThread:
          if (ldesc_caches(mode)) t.pin = kPinHard;
          break;
        case LocalityType::InterThread:
          if (d->semantics.sharing == SharingType::Nearby) {
            if (ldesc_prefetches(mode)) t.prefetch = LDescPrefetch::NextLine;
          } else if (d->semantics.sharing != SharingType::CoAccessed) {
            // No sharing declared: nothing for the cache to do (clustering may still use it).
          } else if (d->semantics.pattern == AccessPattern::Irregular) {
            if (ldesc_caches(mode)) t.pin = kPinSoft;
          } else if (ldesc_prefetches(mode) && d->semantics.stride > 0) {
            t.prefetch = LDescPrefetch::Stride;
            t.stride_bytes = d->semantics.stride * ds.elem_bytes;
            t.tile_width_bytes = std::uint64_t{d->tile.data_tile.x} * ds.elem_bytes;
          }
          break;
      }
    }
    out.push_back(t);
  }
  return out;
}

bool ldesc_prefetch_target(const DsTreatment& t, Addr addr, Addr line, std::uint32_t line_bytes,
                           std::uint64_t l1_bytes, std::uint32_t active_tiles, Addr& target) {
  switch (t.prefetch) {
    case LDescPrefetch::None:
      return false;
    case LDescPrefetch::NextLine:
      target = line + line_bytes;
      break;
    case LDescPrefetch::Stride: {
      const std::uint64_t tiles = active_tiles ? active_tiles : 1;
      const std::uint64_t width = t.tile_width_bytes ? t.tile_width_bytes : 1;
      std::uint64_t q = t.one_stride ? 1 : l1_bytes / (tiles * width);
      if (q == 0) q = 1;
      target = addr + q * t.stride_bytes;
      break;
    }
  }
  return target >= t.base && target < t.base + t.bytes;
}

}  // namespace locsim
