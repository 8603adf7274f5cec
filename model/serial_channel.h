// One direction of a point-to-point link with a fixed bandwidth: packets leave in order, each
// occupying the wire for bytes / bandwidth cycles (fractional bandwidths accumulate exactly, in
// 2^-20ths of a cycle). Shared by every TLM link whose traffic crosses the same wires (an
// inter-module link carries its requests one way and the replies of the opposite link's requests
// the same way). Pure arithmetic: no SystemC.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "model/types.h"

namespace locsim {

class SerialChannel {
 public:
  explicit SerialChannel(double bytes_per_cycle) {
    if (!(bytes_per_cycle > 0.0) || bytes_per_cycle > 1e6)
      throw std::invalid_argument("link bandwidth " + std::to_string(bytes_per_cycle) +
                                  " bytes/cycle (must be > 0)");
    q_per_byte_ = static_cast<std::uint64_t>(kQ / bytes_per_cycle + 0.5);
    if (q_per_byte_ == 0) q_per_byte_ = 1;
  }
  // A packet of `bytes` offered at cycle `now`: returns the cycle its last byte has left (the
  // wire is busy from max(now, free) for its serialisation time).
  Cycle send(Cycle now, std::uint64_t bytes) {
    const std::uint64_t start = std::max(free_q_, now * kQ);
    free_q_ = start + bytes * q_per_byte_;
    busy_q_ += bytes * q_per_byte_;
    bytes_ += bytes;
    ++packets_;
    return (free_q_ + kQ - 1) / kQ;
  }
  // The wire's rate as constructed (bytes per cycle, rounded to the 2^-20-cycle quantum).
  double bytes_per_cycle() const { return double(kQ) / double(q_per_byte_); }
  // Wire-busy cycles so far (utilisation = busy / elapsed).
  double busy_cycles() const { return double(busy_q_) / double(kQ); }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t packets() const { return packets_; }

 private:
  static constexpr std::uint64_t kQ = std::uint64_t{1} << 20;
  std::uint64_t q_per_byte_ = kQ;
  std::uint64_t free_q_ = 0, busy_q_ = 0, bytes_ = 0, packets_ = 0;
};

}  // namespace locsim
