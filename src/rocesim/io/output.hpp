// Result files are written whole: each goes to a temporary name in the output folder and all are renamed into
// place at the end, so a run that fails leaves nothing that looks complete.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rocesim {

// Why `name` cannot name a result file in the output folder, or nothing. A result name is a plain file name: no
// '/', not '.' or '..', no control bytes, and at most kMaxResultName bytes, so that its temporary (".NAME.PID.tmp")
// stays within NAME_MAX (255).
std::optional<std::string> result_name_error(const std::string& name);
inline constexpr size_t kMaxResultName = 200;

// Contract: a result path that exists is a regular file or a symbolic link to one; a link is written through to
// its target, never replaced. Temporaries carry the process id, so two processes never share one, and a
// temporary that failed is removed. Folder and path problems are InputError (the user's -o), I/O failures
// std::runtime_error.
class ResultWriter {
 public:
  explicit ResultWriter(std::string dir) : dir_(std::move(dir)) {}
  ~ResultWriter();  // removes temporaries that were never committed; releases the folder's lock
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;

  // Before a run: makes the folder, checks that a file can be written there, and locks it (LOCK_FILE, holding
  // this process's id) so that a second rocesim writing into it is refused while this one lives. Every name in
  // `names` (what the run may write or remove) must be a regular file if it exists, and none may be one of
  // `inputs`, the files the run reads. Throws InputError naming the folder or the file.
  void prepare(const std::vector<std::string>& names, const std::vector<std::string>& inputs);
  static constexpr const char* kLockFile = ".rocesim.lock";

  // Writes `content` under a temporary name beside the file's final place.
  void stage(const std::string& name, const std::string& content);
  // Renames every staged file into place.
  void commit();
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // The names staged so far, in order.
  std::vector<std::string> names() const;
  // After commit(): removes the outputs of an earlier run in the folder that this run did not rewrite, so that
  // none looks current: of `candidates` (the files the folder's old summary.json listed, read before commit, and
  // the names rocesim writes whatever the scenario), those this run did not write. Returns the names removed.
  std::vector<std::string> remove_stale(const std::vector<std::string>& candidates) const;
  // What the folder's summary.json (before this run replaces it) says an earlier run wrote; empty if none.
  std::vector<std::string> previous_outputs() const;

 private:
  // Makes the output folder if missing; throws InputError when it cannot be one.
  void make_folder() const;
  std::string dir_;
  struct Staged {
    std::string name, tmp, target;  // the result's name, its temporary, where it goes (links followed)
  };
  std::vector<Staged> staged_;
  std::vector<std::string> written_;  // names committed
  int lock_fd_ = -1;
};

// Where writing `path` puts its bytes: the path itself, or the target its symbolic links lead to.
std::string write_target(const std::string& path);

}  // namespace rocesim
