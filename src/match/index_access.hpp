// index_access.hpp - the library's own way to a signature's built index, which the
// public API does not expose (block_index is internal).
#pragma once

#include <rdelta/signature.hpp>

namespace rdelta::detail {

class index_access {
public:
    /// The index build_index() made, or nullptr.
    static const block_index* of(const signature& sig) noexcept { return sig.index_.get(); }
};

}  // namespace rdelta::detail
