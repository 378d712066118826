// rdelta/rdelta.hpp - umbrella header: the whole public C++ API.
#pragma once

#include <rdelta/basis_reader.hpp>
#include <rdelta/basis_root.hpp>
#include <rdelta/byte_sink.hpp>
#include <rdelta/compression.hpp>
#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/error.hpp>
#include <rdelta/export.hpp>
#include <rdelta/file.hpp>
#include <rdelta/format.hpp>
#include <rdelta/history.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/in_place_fd.hpp>
#include <rdelta/input_file.hpp>
#include <rdelta/io.hpp>
#include <rdelta/job.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/manifest.hpp>
#include <rdelta/output_file.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/process.hpp>
#include <rdelta/signature.hpp>
#include <rdelta/update.hpp>
#include <rdelta/version.hpp>
