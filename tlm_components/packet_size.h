// Packet sizes on the on-chip networks, shared by every Interconnect (crossbar, mesh): a header
// plus the data the packet carries, in whole flits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <systemc>
#include <tlm>

#include "tlm_components/gpu_extension.h"

namespace locsim {

// Request: header, plus the written bytes of stores and atomics.
// Reply: header, plus the data of loads/prefetches (only the 32 B sectors asked for when the
// request names sectors) and the bytes of atomics; store acknowledgements are a header alone.
// per_sector (noc.sector_packets): a request travels as one packet per 32 B sector it moves, as
// GPGPU-Sim's memory partitions and sectored L1s send one mem_fetch per sector, each with its
// own header: a load request is one header per sector, a store one header plus that sector's
// bytes per stored sector, and its acknowledgement one header per stored sector.
std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                                std::uint32_t flit_bytes, bool per_sector);
std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, std::uint32_t header_bytes,
                              std::uint32_t flit_bytes, bool per_sector);
// The same, given gp's extension (a caller that holds it saves the lookup). Inline for one
// packet per request (the default), which every transaction asks twice.
std::uint32_t noc_request_sector_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                       std::uint32_t header_bytes, std::uint32_t flit_bytes);
std::uint32_t noc_reply_sector_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                     std::uint32_t header_bytes, std::uint32_t flit_bytes);
inline std::uint32_t noc_request_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                       std::uint32_t header_bytes, std::uint32_t flit_bytes,
                                       bool per_sector) {
  if (per_sector) return noc_request_sector_flits(gp, e, header_bytes, flit_bytes);
  std::uint32_t bytes = header_bytes;
  if (e.kind == AccessKind::Store || e.kind == AccessKind::Atomic) bytes += e.bytes.count();
  return (bytes + flit_bytes - 1) / flit_bytes;
}
inline std::uint32_t noc_reply_flits(const tlm::tlm_generic_payload& gp, const GpuExtension& e,
                                     std::uint32_t header_bytes, std::uint32_t flit_bytes,
                                     bool per_sector) {
  if (per_sector) return noc_reply_sector_flits(gp, e, header_bytes, flit_bytes);
  std::uint32_t bytes = header_bytes;
  if (e.kind == AccessKind::Load || e.kind == AccessKind::Prefetch) {
    bytes += static_cast<std::uint32_t>(gp.get_data_length());
    // Sector-granular fills carry only the sectors asked for.
    const unsigned sectors = static_cast<unsigned>(__builtin_popcount(e.sector_mask));
    if (sectors)
      bytes =
          header_bytes + std::min<std::uint32_t>(static_cast<std::uint32_t>(gp.get_data_length()),
                                                 sectors * kTransferSectorBytes);
  } else if (e.kind == AccessKind::Atomic) {
    bytes += e.bytes.count();
  }
  return (bytes + flit_bytes - 1) / flit_bytes;
}

}  // namespace locsim
