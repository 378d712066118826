// rdelta/update.hpp - the whole crash-safe in-place update of an image file in one
// call: what `rdelta patch --in-place` and `rdelta recover` do, for a program
// that links the library.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/export.hpp>
#include <rdelta/history.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/in_place_fd.hpp>
#include <rdelta/journal.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace rdelta {

/// How update_in_place() runs.
struct RDELTA_API update_options {
    /// The patch's options; its journal, manifest and keep_history are set by the
    /// call from the fields below.
    in_place_options patch;
    bool journal = true;   ///< keep an undo journal beside the image (off: --no-journal)
    bool manifest = true;  ///< keep the image's chunk manifest beside it
    /// Keep every patch's undo data as a restore point (rdelta/history.hpp),
    /// creating the history. An image whose history exists keeps points whatever
    /// this says, so that no night is missing from it.
    bool keep_history = false;
    std::string history_dir;  ///< "" = ".IMAGE.rdelta-history" beside the image
    /// Told, before the patch, that an interrupted rewrite was finished from this
    /// staging file.
    std::function<void(const std::string& staging)> on_rewrite_finished;
    /// Told, before the patch, what recovery of an interrupted patch found and did
    /// (not called when there was nothing to recover), with the journal's name.
    std::function<void(const recovery_result&, const std::string& journal)> on_recovered;
};

/// What update_in_place() did.
struct RDELTA_API update_report {
    in_place_stats stats;
    std::string image;    ///< the image's name, for messages
    std::string journal;  ///< its journal's name
    std::string history;  ///< its history folder's name, "" without one
    /// The journal's name was moved or replaced during the patch: the file under
    /// it now was not deleted (not this run's), and the one moved away is stale.
    bool journal_moved_away = false;
};

/// Open `image_path` (rdelta/in_place_fd.hpp), lock it, finish an interrupted
/// rewrite, recover an interrupted patch (keeping a finished one's restore point),
/// then patch it in place with the delta `open` reads, journaled, verified, with
/// its manifest and history, as `rdelta patch --in-place` does.
RDELTA_API result<update_report> update_in_place(const std::string& image_path, const delta_opener& open,
                                                 update_options options);
/// The same for an image already open (not yet locked: the call locks it).
RDELTA_API result<update_report> update_in_place(in_place_fd& image, const delta_opener& open, update_options options);

/// What `rdelta recover` does: lock, finish an interrupted rewrite, recover an
/// interrupted patch (into the history when it has one), and drop a note on the
/// image that names a journal no longer there. The recovery, or none.
RDELTA_API result<update_report> recover_image(in_place_fd& image, update_options options);

}  // namespace rdelta
