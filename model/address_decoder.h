// Physical address -> memory partition (channel), L2 sub-partition, DRAM bank/row/column.
// Channels need not be a power of two (Fermi has 6): the address is split into chunks of
// interleave_bytes, chunk i goes to channel (i + hash) % channels, and the address local to the
// channel is the remaining chunk index plus the offset. Bank, row and column are bit fields of the
// local address (column | bank | row from low to high), with optional XOR of row bits into the
// bank.
#pragma once
#include <cstdint>
#include <string>

#include "model/types.h"

namespace locsim {

enum class ChannelHash { None, Xor };

struct AddressMapConfig {
  std::uint32_t channels = 6;                   // memory partitions / controllers
  std::uint32_t subpartitions_per_channel = 2;  // L2 banks per memory partition
  std::uint32_t interleave_bytes = 256;         // chunk size interleaved across channels
  std::uint32_t banks = 16;                     // DRAM banks per channel (power of two)
  std::uint32_t row_bytes = 2048;               // DRAM page size per bank (power of two)
  ChannelHash channel_hash = ChannelHash::None;
  bool bank_xor = true;  // XOR low row bits into the bank index
  // Throws std::invalid_argument naming the offending field.
  void validate() const;
};

struct DramCoord {
  std::uint32_t channel = 0;
  std::uint32_t subpartition = 0;  // global L2 sub-partition index in [0, channels*subparts)
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // byte offset within the row
  Addr local = 0;            // address local to the channel
};

class AddressDecoder {
 public:
  explicit AddressDecoder(const AddressMapConfig& c);
  const AddressMapConfig& config() const { return cfg_; }
  DramCoord decode(Addr a) const;
  std::uint32_t channel(Addr a) const { return decode(a).channel; }
  std::uint32_t subpartition(Addr a) const { return decode(a).subpartition; }
  std::uint32_t num_subpartitions() const { return cfg_.channels * cfg_.subpartitions_per_channel; }

 private:
  AddressMapConfig cfg_;
  unsigned il_shift_;
  unsigned row_shift_;
  unsigned bank_bits_;
};

}  // namespace locsim
