// rdelta/history.hpp - restore points: every in-place patch's undo journal kept as
// the image's reverse increment, listed, restored, pruned and verified.
//
// A history is a folder (".IMAGE.rdelta-history" beside the image, or one the
// caller names) of point files. A point file is the committed undo journal of one
// in-place patch (rdelta/journal.hpp) with a footer (docs/format.md, "Restore
// points"): the old bytes of every region the patch overwrote (holes as holes),
// the image's old length and chunk root, when that version was written, and the
// delta that replaced it. Point 1 is the image before its last patch, point 2 the
// image before the patch before, and so on; a point is restored by applying the
// increments from the newest down to it over the image as it is now.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/basis_reader.hpp>
#include <rdelta/byte_sink.hpp>
#include <rdelta/error.hpp>
#include <rdelta/export.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rdelta {

class in_place_fd;
class in_place_file;
class journal_storage;

/// One restore point.
struct RDELTA_API history_point {
    std::uint64_t number = 0;                  ///< 1 = the image before its last patch, 2 = before the one before, ...
    std::uint64_t seq = 0;                     ///< the point file's sequence number (grows with every point kept)
    std::int64_t time_s = 0;                   ///< when the image took that state (its modification time then)
    std::int64_t kept_s = 0;                   ///< when the patch that replaced it ran
    std::uint64_t length = 0;                  ///< the image's length then
    std::uint64_t next_length = 0;             ///< its length after that patch
    std::uint64_t stored_bytes = 0;            ///< the point file's size
    std::uint32_t chunk_size = 0;              ///< of the roots
    std::array<std::uint8_t, 16> root{};       ///< that image's chunk root
    std::array<std::uint8_t, 16> next_root{};  ///< the image's root after the patch (zeros: unknown)
    std::array<std::uint8_t, 16> delta{};      ///< XXH3-128 of the delta that patch applied
    std::string file;                          ///< the point file's path
};

/// An open history folder. Opened through the image's folder (the default one) or
/// by the caller's path, then used through its descriptor only. It is followed only
/// when it is a folder (not a symlink to one) owned by the caller and closed to
/// everyone else (mode 0700 or stricter); its point files only when each is a
/// regular file with one link, owned by the caller. Anything else is refused
/// (io_error) and left untouched.
class RDELTA_API history {
public:
    /// The history of `image`: `dir` empty for the default ".IMAGE.rdelta-history"
    /// beside it. With `create`, a missing folder is made (0700); without, a
    /// missing one gives nullptr.
    static result<std::unique_ptr<history>> open(const in_place_fd& image, const std::string& dir, bool create);
    virtual ~history() = default;

    /// The points, newest first (number 1 first). Fails (corrupt) on a point file
    /// whose header or footer is damaged, naming it.
    virtual result<std::vector<history_point>> points() = 0;
    /// Keep a committed journal whose footer was written (in_place_options::
    /// keep_history) as the newest point: renamed into the folder when both are on
    /// one file system, else copied and synced first. The folder is synced after.
    virtual result<history_point> adopt(journal_storage& journal) = 0;
    /// For messages.
    virtual const std::string& name() const = 0;

protected:
    history() = default;
    friend struct history_access;
};

/// What a restore did.
struct RDELTA_API restore_stats {
    history_point point;
    std::uint64_t image_bytes_read = 0;      ///< bytes read from the image (holes are not)
    std::uint64_t increment_bytes_read = 0;  ///< bytes read from point files
    std::uint64_t bytes_written = 0;         ///< the output's length
};

/// Write the image as it was at point `number` (1 = before its last patch) to
/// `out` (holes as runs of zeros: a sparse output_file keeps them holes), checking
/// it against the point's root on the way: corrupt on a mismatch, naming the
/// point, and the caller must not publish what it got. Reads from the image only
/// the regions no increment down to the point covers; never writes to the image
/// or the history. The caller holds the image's lock.
RDELTA_API result<restore_stats> restore_point(in_place_file& image, history& h, std::uint64_t number,
                                               const byte_sink& out);

/// The image as it was at point `number`, to read at random (a delta against
/// another copy of it is made from this: `make_delta_from`), valid while `image`
/// and `h` are; `info` gets the point. Its bytes are not checked against the
/// point's root: a delta's checksum trailer made from it is.
RDELTA_API result<std::unique_ptr<basis_reader>> open_point(in_place_file& image, history& h, std::uint64_t number,
                                                            history_point* info = nullptr);

/// Which points a prune keeps: the union of the rules (borg's and restic's): the
/// newest `keep_last`, and the newest point of each of the last `daily` days,
/// `weekly` ISO weeks and `monthly` months that have points (local time).
struct RDELTA_API prune_policy {
    std::uint64_t keep_last = 0, daily = 0, weekly = 0, monthly = 0;
    bool empty() const noexcept { return keep_last == 0 && daily == 0 && weekly == 0 && monthly == 0; }
};

/// For points with these times (newest first), whether `policy` keeps each.
RDELTA_API std::vector<bool> points_kept(const std::vector<std::int64_t>& times_newest_first,
                                         const prune_policy& policy);

/// What a prune did (or, dry, would do).
struct RDELTA_API prune_report {
    std::vector<history_point> kept, dropped;
    std::uint64_t merged = 0;       ///< increments merged into an older kept neighbour
    std::uint64_t bytes_freed = 0;  ///< point bytes before minus after
};

/// Drop the points `policy` does not keep. The oldest go with their increments;
/// one between two kept points is merged into its older kept neighbour (where both
/// cover a region, the older bytes win), the merged increment written and synced as
/// a new file and renamed over that neighbour before the dropped one is deleted,
/// so an interrupted prune leaves every kept point restorable. `dry_run` changes
/// nothing. The caller holds the image's lock.
RDELTA_API result<prune_report> prune_history(history& h, const prune_policy& policy, bool dry_run);

/// What a check of the history found: per point, "" or what is wrong.
struct RDELTA_API history_check {
    std::vector<history_point> points;
    std::vector<std::string> problems;  ///< one per point, same order; "" = sound
    bool clean() const noexcept {
        for (const auto& p : problems)
            if (!p.empty()) return false;
        return true;
    }
};

/// Check every point file against the checksums stored in it (header, every record
/// and the footer), without restoring anything.
RDELTA_API result<history_check> verify_history(history& h);

}  // namespace rdelta
