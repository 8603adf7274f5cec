#include "model/address_decoder.h"

#include <stdexcept>

namespace locsim {

void AddressMapConfig::validate() const {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (!channels) bad("address_map.channels must be at least 1");
  if (!subpartitions_per_channel) bad("address_map.subpartitions_per_channel must be at least 1");
  if (!is_pow2(interleave_bytes) || interleave_bytes < 128)
    bad("address_map.interleave must be a power of two >= 128 (got " +
        std::to_string(interleave_bytes) + ")");
  if (!is_pow2(banks))
    bad("address_map.banks must be a power of two (got " + std::to_string(banks) + ")");
  if (!is_pow2(row_bytes) || row_bytes < interleave_bytes)
    bad("address_map.row_bytes must be a power of two >= the interleave (got " +
        std::to_string(row_bytes) + ")");
}

AddressDecoder::AddressDecoder(const AddressMapConfig& c) : cfg_(c) {
  cfg_.validate();
  il_shift_ = log2_floor(c.interleave_bytes);
  row_shift_ = log2_floor(c.row_bytes);
  bank_bits_ = log2_floor(c.banks);
}

DramCoord AddressDecoder::decode(Addr a) const {
  DramCoord d;
  const Addr chunk = a >> il_shift_;
  const Addr upper = chunk / cfg_.channels;
  Addr sel = chunk;
  if (cfg_.channel_hash == ChannelHash::Xor) {
    // Fold the chunk index above the channel bits in 5-bit groups and add it: consecutive
    // chunks still rotate over all channels, power-of-two strides stop hitting one channel.
    Addr f = 0;
    for (Addr u = upper; u; u >>= 5) f ^= u & 31;
    sel = chunk + f;
  }
  d.channel = static_cast<std::uint32_t>(sel % cfg_.channels);
  d.local = (upper << il_shift_) | (a & (cfg_.interleave_bytes - 1));
  d.subpartition = d.channel * cfg_.subpartitions_per_channel +
                   static_cast<std::uint32_t>(upper % cfg_.subpartitions_per_channel);
  d.column = static_cast<std::uint32_t>(d.local & (cfg_.row_bytes - 1));
  d.bank = static_cast<std::uint32_t>((d.local >> row_shift_) & (cfg_.banks - 1));
  d.row = static_cast<std::uint32_t>(d.local >> (row_shift_ + bank_bits_));
  if (cfg_.bank_xor) d.bank ^= d.row & (cfg_.banks - 1);
  return d;
}

}  // namespace locsim
