#include "model/numa_address_mapper.h"

#include <stdexcept>
#include <string>

namespace locsim {

namespace {
unsigned log2_exact(std::uint64_t v, const char* what) {
  if (v == 0 || (v & (v - 1)) != 0)
    throw std::invalid_argument(std::string(what) + " " + std::to_string(v) +
                                " (must be a power of two)");
  unsigned n = 0;
  while ((std::uint64_t{1} << n) < v) ++n;
  return n;
}
}  // namespace

NumaAddressMapper::NumaAddressMapper(std::uint32_t zones, std::uint32_t channels,
                                     std::uint32_t interleave_bytes)
    : zones_(zones), channels_(channels), next_frame_(zones, 0) {
  if (channels == 0 || channels % zones != 0)
    throw std::invalid_argument("NUMA zones = " + std::to_string(zones) + " must divide the " +
                                std::to_string(channels) + " memory channels");
  il_shift_ = log2_exact(interleave_bytes, "interleave");
}

void NumaAddressMapper::enable_first_touch(std::uint64_t page_bytes) {
  page_shift_ = log2_exact(page_bytes, "first-touch page size");
}

const NumaAddressMapper::Frame& NumaAddressMapper::frame_of(Addr a, std::uint32_t toucher) const {
  const Addr page = a >> page_shift_;
  auto it = pages_.find(page);
  if (it == pages_.end()) it = pages_.emplace(page, Frame{toucher, next_frame_[toucher]++}).first;
  return it->second;
}

void NumaAddressMapper::touch(Addr a, std::uint32_t zone) {
  if (first_touch()) frame_of(a, zone);
}

std::uint32_t NumaAddressMapper::zone(Addr a) const {
  if (first_touch()) return frame_of(a, xor_zone(a, zones_.zones())).zone;
  return zones_.zone(a);
}

Addr NumaAddressMapper::zone_local(Addr a, std::uint32_t& zone) const {
  if (first_touch()) {
    const Frame& f = frame_of(a, xor_zone(a, zones_.zones()));
    zone = f.zone;
    return (f.frame << page_shift_) | (a & ((Addr{1} << page_shift_) - 1));
  }
  zone = zones_.zone(a);
  return zones_.local(a);
}

DramCoord NumaAddressMapper::decode(Addr a, const AddressMap& map) const {
  std::uint32_t z = 0;
  const Addr zl = zone_local(a, z);
  const std::uint32_t cz = channels_per_zone();
  const Addr chunk = zl >> il_shift_;
  const auto ch = static_cast<std::uint32_t>(z * cz + chunk % cz);
  const Addr local = ((chunk / cz) << il_shift_) | (zl & ((Addr{1} << il_shift_) - 1));
  return map.place(ch, local);
}

}  // namespace locsim
