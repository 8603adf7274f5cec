#include "tlm_components/packet_size.h"

#include <algorithm>

#include "tlm_components/gpu_extension.h"

namespace locsim {

namespace {
static_assert(kTransferSectorBytes == 32,
              "written_sector_flits reads a sector as half a mask word");

std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}

bool carries_data_out(AccessKind k) {
  return k == AccessKind::Store || k == AccessKind::Atomic;
}

bool returns_data(AccessKind k) {
  return k == AccessKind::Load || k == AccessKind::Prefetch;
}

// Sectors a load moves: those it names, else every sector of its length.
std::uint32_t load_sectors(const tlm::tlm_generic_payload& gp, const GpuExtension& e) {
  if (e.sector_mask) return static_cast<std::uint32_t>(__builtin_popcount(e.sector_mask));
  return std::max<std::uint32_t>(1, ceil_div(gp.get_data_length(), kTransferSectorBytes));
}

// Per-sector packets of a store or atomic: one header plus the sector's written bytes each
// (with_data), or one header each (the acknowledgement).
std::uint32_t written_sector_flits(const GpuExtension& e, std::uint32_t header_bytes,
                                   std::uint32_t flit_bytes, bool with_data) {
  const std::uint32_t mask = e.bytes.sector_mask(kTransferSectorBytes);
  if (!mask) return ceil_div(header_bytes, flit_bytes);
  std::uint32_t flits = 0;
  for (unsigned s = 0; s < 4 && (mask >> s) != 0; ++s) {  // 4 sectors of a 128 B mask
    if (!((mask >> s) & 1u)) continue;
    // A 32 B sector is one half of a 64-bit word of the byte mask.
    const std::uint64_t half = (e.bytes.w[s >> 1] >> ((s & 1u) * 32)) & 0xFFFFFFFFull;
    const std::uint32_t data =
        with_data ? static_cast<std::uint32_t>(__builtin_popcountll(half)) : 0;
    flits += ceil_div(header_bytes + data, flit_bytes);
  }
  return flits;
}
}  // namespace

std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                                std::uint32_t flit_bytes, bool per_sector) {
  return noc_request_flits(gp, gpu_ext(const_cast<tlm::tlm_generic_payload&>(gp)), header_bytes,
                           flit_bytes, per_sector);
}

std::uint32_t noc_request_sector_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                       std::uint32_t header_bytes, std::uint32_t flit_bytes) {
  if (carries_data_out(e.kind)) return written_sector_flits(e, header_bytes, flit_bytes, true);
  return load_sectors(gp, e) * ceil_div(header_bytes, flit_bytes);
}

std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                              std::uint32_t flit_bytes, bool per_sector) {
  return noc_reply_flits(gp, gpu_ext(const_cast<tlm::tlm_generic_payload&>(gp)), header_bytes,
                         flit_bytes, per_sector);
}

std::uint32_t noc_reply_sector_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                     std::uint32_t header_bytes, std::uint32_t flit_bytes) {
  if (e.kind == AccessKind::Atomic) return written_sector_flits(e, header_bytes, flit_bytes, true);
  if (!returns_data(e.kind)) return written_sector_flits(e, header_bytes, flit_bytes, false);
  const std::uint32_t sector = std::min<std::uint32_t>(gp.get_data_length(), kTransferSectorBytes);
  return load_sectors(gp, e) * ceil_div(header_bytes + sector, flit_bytes);
}

}  // namespace locsim
