// The address decode of a multi-module GPU (seed 000 §4.6, rules R7.4-R7.6, B3, B4): zone z owns
// channels [z*C/Z, (z+1)*C/Z); the zone comes from the NumaZoneMap (start bits of placed data
// structures, the XOR hash elsewhere) or, under FirstTouch-Distrib, from the page table, which
// gives each page a frame of its zone in first-touch order. Inside the zone, the zone-local
// address is interleaved over the zone's channels like the baseline map. Registered on the
// platform's AddressMap for the whole address space, so every block that routes by address
// (module crossbars, L2 banks, memory controllers, the replay) sees the same zone.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/address_map.h"
#include "model/numa_zone.h"

namespace locsim {

class NumaAddressMapper final : public AddressRangeMapper {
 public:
  // Throws std::invalid_argument unless zones is a power of two dividing channels.
  NumaAddressMapper(std::uint32_t zones, std::uint32_t channels, std::uint32_t interleave_bytes);

  NumaZoneMap& zone_map() { return zones_; }
  const NumaZoneMap& zone_map() const { return zones_; }
  std::uint32_t zones() const { return zones_.zones(); }
  std::uint32_t channels_per_zone() const { return channels_ / zones_.zones(); }

  // FirstTouch-Distrib (B4): pages of `page_bytes` are placed in the zone of their first toucher.
  void enable_first_touch(std::uint64_t page_bytes = 65536);
  bool first_touch() const { return page_shift_ != 0; }
  // Called by a module's network for every request it routes on behalf of its own SMs: places
  // an unplaced page in `zone` (first touch). No effect without first touch.
  void touch(Addr a, std::uint32_t zone);
  // The zone holding `a`. Under first touch an unplaced page (only debug accesses can see one) is
  // placed in its XOR zone, so its decode never changes afterwards.
  std::uint32_t zone(Addr a) const;
  std::size_t pages_placed() const { return pages_.size(); }

  DramCoord decode(Addr a, const AddressMap& map) const override;

 private:
  struct Frame {
    std::uint32_t zone;
    std::uint64_t frame;  // page index within the zone
  };
  const Frame& frame_of(Addr a, std::uint32_t toucher) const;
  Addr zone_local(Addr a, std::uint32_t& zone) const;

  NumaZoneMap zones_;
  std::uint32_t channels_;
  unsigned il_shift_ = 0;
  unsigned page_shift_ = 0;  // 0: first touch off
  mutable std::unordered_map<Addr, Frame> pages_;
  mutable std::vector<std::uint64_t> next_frame_;
};

}  // namespace locsim
