// Errors in user input: each names the file, the line, the key and the problem. The CLI prints the message
// and exits with status 2.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace rocesim {

// `s` with every byte a terminal would act on (control characters, DEL) and every byte that is not part of valid
// UTF-8 written as \xNN: input echoed in a message can neither recolour the terminal nor break JSON.
std::string printable(const std::string& s);
// The offset of the first byte of `s` that is not part of valid UTF-8 (RFC 3629), or npos.
size_t invalid_utf8(const std::string& s);
// Whether `s` is one line of UTF-8 text: no byte that is not valid UTF-8, no control byte (tabs and line breaks
// included), no DEL. Names that reach file names, CSV fields and terminals must be.
bool is_plain_text(const std::string& s);

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, std::string key, std::string problem)
      : std::runtime_error(format(file, line, key, problem)),
        file_(std::move(file)),
        line_(line),
        key_(std::move(key)),
        problem_(std::move(problem)) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const std::string& problem() const { return problem_; }

 private:
  static std::string format(const std::string& file, int line, const std::string& key, const std::string& problem) {
    std::string s;
    s.append(file.empty() ? std::string("<input>") : file);
    if (line > 0) {
      s.append(":").append(std::to_string(line));
    }
    s.append(": ");
    if (!key.empty()) {
      s.append(key).append(": ");
    }
    s.append(problem);
    return printable(s);
  }
  std::string file_;
  int line_;
  std::string key_;
  std::string problem_;
};

// The closest candidate to `word` by edit distance, or "" if none is close enough to suggest.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace rocesim
