// test_stale_temps.cpp - which names the sweep of dead runs' temporary outputs may
// take: only `.NAME.rdelta-` or `.rdelta-` and exactly six letters or digits.
#include "fs/stale_temps.hpp"

#include <doctest/doctest.h>

using rdelta::io_detail::is_temp_name;

TEST_CASE("is_temp_name: the temporary outputs of a name, and nothing else") {
    CHECK(is_temp_name(".disk.img.rdelta-Ab12Cd", "disk.img"));
    CHECK(is_temp_name(".rdelta-Ab12Cd", "disk.img"));  // the form for names too long for the suffix
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-journal", "disk.img"));
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-rewrite", "disk.img"));
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-rewrite-Ab12Cd", "disk.img"));
    CHECK_FALSE(is_temp_name(".rdelta-rewrite-fe00-1234", "disk.img"));
    CHECK_FALSE(is_temp_name(".rdelta-journal-0123456789abcdef", "disk.img"));
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-Ab12C", "disk.img"));
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-Ab12Cd7", "disk.img"));
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-Ab.2Cd", "disk.img"));
    CHECK_FALSE(is_temp_name(".other.img.rdelta-Ab12Cd", "disk.img"));
    CHECK_FALSE(is_temp_name("disk.img", "disk.img"));
    CHECK_FALSE(is_temp_name(".disk.img.rdelta-Ab12Cd", "img"));
}
