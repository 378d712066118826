// test_target_folder.cpp - the folder --name-in-dir enters for a remote PATH, and
// the words push looks for when it is missing.
#include <doctest/doctest.h>

#include "cli/target_folder.hpp"

using rdelta::cli::folder_of_target;
using rdelta::cli::folder_problem;
using rdelta::cli::folder_problem_words;

TEST_CASE("folder_of_target: PATH itself when it ends in '/', '.' or '..', else the folder it names a file in") {
    CHECK(folder_of_target("/backups/disk.img") == "/backups");
    CHECK(folder_of_target("/backups") == "/");
    CHECK(folder_of_target("/backups/") == "/backups");
    CHECK(folder_of_target("/backups//") == "/backups");
    CHECK(folder_of_target("/") == "/");
    CHECK(folder_of_target("disk.img") == ".");
    CHECK(folder_of_target("b/disk.img") == "b");
    CHECK(folder_of_target(".") == ".");
    CHECK(folder_of_target("b/.") == "b/.");
    CHECK(folder_of_target("..") == "..");
    CHECK(folder_of_target("b/../") == "b/..");
}

TEST_CASE("folder_problem_words: what a command says, and push finds") {
    CHECK(folder_problem_words(folder_problem::missing, "/nope") == "directory /nope does not exist");
    CHECK(folder_problem_words(folder_problem::not_a_folder, "/etc/passwd") == "/etc/passwd is not a directory");
}
