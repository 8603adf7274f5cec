#include "tlm_components/packet_size.h"

#include <algorithm>

#include "tlm_components/gpu_extension.h"

namespace locsim {

namespace {
std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) {
  return (a + b - 1) / b;
}
}  // namespace

std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                                std::uint32_t flit_bytes) {
  const GpuExtension& e = gpu_ext(const_cast<tlm::tlm_generic_payload&>(gp));
  std::uint32_t bytes = header_bytes;
  if (e.kind == AccessKind::Store || e.kind == AccessKind::Atomic) bytes += e.bytes.count();
  return ceil_div(bytes, flit_bytes);
}

std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                              std::uint32_t flit_bytes) {
  const GpuExtension& e = gpu_ext(const_cast<tlm::tlm_generic_payload&>(gp));
  std::uint32_t bytes = header_bytes;
  if (e.kind == AccessKind::Load || e.kind == AccessKind::Prefetch) {
    bytes += static_cast<std::uint32_t>(gp.get_data_length());
    // Sector-granular fills carry only the sectors asked for.
    const unsigned sectors = static_cast<unsigned>(__builtin_popcount(e.sector_mask));
    if (sectors)
      bytes = header_bytes +
              std::min<std::uint32_t>(gp.get_data_length(), sectors * kTransferSectorBytes);
  } else if (e.kind == AccessKind::Atomic) {
    bytes += e.bytes.count();
  }
  return ceil_div(bytes, flit_bytes);
}

}  // namespace locsim
