// The parameters every set-associative cache shares (<prefix>.size/.line/.sector/.ways/.indexing),
// declared once for the L1 and the L2 from the geometry their configuration structs default to,
// and the validated geometry built from them.
#pragma once
#include <cstdint>
#include <string>

#include "model/params.h"
#include "model/tag_array.h"

namespace locsim {

// `size_default` is the capacity the size key defaults to (for the L2 the whole L2, split later).
void declare_cache_geometry_params(ParamRegistry& p, const std::string& prefix,
                                   const CacheGeometry& defaults, std::uint64_t size_default,
                                   const std::string& what);
// Geometry of `bytes` of cache with the prefix's line/sector/ways/indexing; throws ConfigError
// naming the key when the combination is inconsistent.
CacheGeometry cache_geometry_from_params(const ParamRegistry& p, const std::string& prefix,
                                         std::uint64_t bytes);

}  // namespace locsim
