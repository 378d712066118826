// point_view.hpp - the image as it was at a restore point, read through the
// increments down to it over the image as it is now: nothing is written.
#pragma once

#include "history_folder.hpp"
#include "increment_map.hpp"

#include <rdelta/basis_reader.hpp>
#include <rdelta/in_place.hpp>

#include <atomic>
#include <memory>
#include <vector>

namespace rdelta::detail {

class point_view final : public basis_reader {
public:
    /// Point `number` (1 = newest) of `h` over `image`. corrupt when the history
    /// does not end where the image is now (its length differs from the newest
    /// point's next length), or an increment's record fails its checks.
    static result<std::unique_ptr<point_view>> open(in_place_file& image, history_folder& h, std::uint64_t number);
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const override { return length_; }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override;

    const history_point& point() const noexcept { return point_; }
    const std::vector<piece>& pieces() const noexcept { return pieces_; }
    /// Read one piece's bytes at `pos` (within it).
    result<std::size_t> read_piece(const piece& p, std::uint64_t pos, std::span<std::uint8_t> out);
    std::uint64_t image_bytes_read() const noexcept { return image_read_; }
    std::uint64_t increment_bytes_read() const noexcept { return increment_read_; }

private:
    point_view(in_place_file& image) : image_(image) {}
    const piece* piece_at(std::uint64_t pos) const;

    in_place_file& image_;
    history_point point_;
    std::vector<std::unique_ptr<point_file>> files_;
    std::vector<piece> pieces_;
    std::uint64_t length_ = 0;
    std::atomic<std::uint64_t> image_read_{0}, increment_read_{0};
};

}  // namespace rdelta::detail
