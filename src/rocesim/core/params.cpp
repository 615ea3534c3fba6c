#include "rocesim/core/params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace rocesim {

double ParamTraits<double>::parse(const std::string& s) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (...) {
    throw UnitError{"bad number '" + s + "'"};
  }
  std::string rest = s.substr(pos);
  if (rest == "%") {
    v /= 100.0;
  } else if (!rest.empty()) {
    throw UnitError{"bad number '" + s + "'"};
  }
  if (!std::isfinite(v)) {
    throw UnitError{"bad number '" + s + "'"};
  }
  return v;
}

std::string ParamTraits<double>::text(const double& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

int64_t ParamTraits<int64_t>::parse(const std::string& s) {
  int64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e) {
    throw UnitError{"bad integer '" + s + "'"};
  }
  return v;
}

bool ParamTraits<bool>::parse(const std::string& s) {
  if (s == "true" || s == "yes" || s == "on") {
    return true;
  }
  if (s == "false" || s == "no" || s == "off") {
    return false;
  }
  throw UnitError{"bad boolean '" + s + "' (use true or false)"};
}

namespace {
// The items of "[a, b]" or "a, b", trimmed.
std::vector<std::string> list_items(const std::string& s) {
  std::vector<std::string> out;
  std::string body = s;
  if (!body.empty() && body.front() == '[') {
    body = body.substr(1);
  }
  if (!body.empty() && body.back() == ']') {
    body.pop_back();
  }
  std::stringstream ss(body);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    if (b == std::string::npos) {
      continue;
    }
    out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}
}  // namespace

std::vector<int64_t> ParamTraits<std::vector<int64_t>>::parse(const std::string& s) {
  std::vector<int64_t> out;
  for (const auto& item : list_items(s)) {
    out.push_back(ParamTraits<int64_t>::parse(item));
  }
  return out;
}

std::vector<std::string> ParamTraits<std::vector<std::string>>::parse(const std::string& s) { return list_items(s); }

std::string ParamTraits<std::vector<std::string>>::text(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i ? ", " : "") + v[i];
  }
  return s + "]";
}

CountOrList ParamTraits<CountOrList>::parse(const std::string& s) {
  CountOrList v;
  if (!s.empty() && s.front() == '[') {
    v.list = ParamTraits<std::vector<int64_t>>::parse(s);
    if (v.list.empty()) {
      throw UnitError{"an empty list"};
    }
  } else {
    v.count = ParamTraits<int64_t>::parse(s);
  }
  return v;
}

std::vector<Bytes> ParamTraits<std::vector<Bytes>>::parse(const std::string& s) {
  std::vector<Bytes> out;
  for (const auto& item : list_items(s)) {
    out.push_back(parse_bytes(item));
  }
  return out;
}

nlohmann::json ParamTraits<std::vector<Bytes>>::dump(const std::vector<Bytes>& v) {
  nlohmann::json j = nlohmann::json::array();
  for (Bytes b : v) {
    j.push_back(to_string(b));
  }
  return j;
}

std::string ParamTraits<std::vector<Bytes>>::text(const std::vector<Bytes>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i ? ", " : "") + to_string(v[i]);
  }
  return s + "]";
}

std::string ParamTraits<std::vector<int64_t>>::text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(v[i]);
  }
  return s + "]";
}

Check<std::string> one_of(std::vector<std::string> choices) {
  return [choices](const std::string& v) -> std::optional<std::string> {
    for (const auto& c : choices) {
      if (c == v) {
        return std::nullopt;
      }
    }
    std::string msg = "'" + v + "' is not one of:";
    for (const auto& c : choices) {
      msg += " " + c;
    }
    const std::string sug = did_you_mean(v, choices);
    if (!sug.empty()) {
      msg += "; did you mean '" + sug + "'?";
    }
    return msg;
  };
}

Check<std::string> parses(std::function<void(const std::string&)> parser, std::vector<std::string> keywords,
                          std::string what) {
  return [parser = std::move(parser), keywords = std::move(keywords),
          what = std::move(what)](const std::string& v) -> std::optional<std::string> {
    if (std::find(keywords.begin(), keywords.end(), v) != keywords.end()) {
      return std::nullopt;
    }
    try {
      parser(v);
    } catch (const UnitError& e) {
      if (keywords.empty()) {
        return e.message;
      }
      std::string msg = "must be";
      for (size_t i = 0; i < keywords.size(); ++i) {
        msg += (i == 0 ? " '" : ", '") + keywords[i] + "'";
      }
      return msg + " or " + what + ": " + e.message;
    }
    return std::nullopt;
  };
}

void check_input_file(const std::filesystem::path& p, const std::string& file, int line, const std::string& key) {
  std::error_code ec;
  const auto st = std::filesystem::status(p, ec);
  if (ec || !std::filesystem::exists(st)) {
    return;
  }
  if (std::filesystem::is_directory(st)) {
    throw InputError(file, line, key, "'" + p.string() + "' is a directory, not a file");
  }
  if (std::filesystem::is_character_file(st) || std::filesystem::is_block_file(st)) {
    throw InputError(file, line, key, "'" + p.string() + "' is a device, not a file");
  }
  if (std::filesystem::is_fifo(st) || std::filesystem::is_socket(st)) {  // reading one would wait for a writer
    throw InputError(file, line, key, "'" + p.string() + "' is a FIFO or socket, not a file");
  }
  if (std::filesystem::is_regular_file(st)) {
    const uintmax_t size = std::filesystem::file_size(p, ec);
    if (!ec && size > kMaxInputBytes) {
      throw InputError(file, line, key,
                       "'" + p.string() + "' has " + std::to_string(size) + " bytes; input files are limited to 1 GiB");
    }
  }
}

InputFile open_input(const std::string& name, const std::string& base_dir, const ParseCtx& ctx, const YAML::Node& at,
                     const std::string& key) {
  std::filesystem::path p(name);
  if (p.is_relative()) {
    p = std::filesystem::path(base_dir) / p;
  }
  check_input_file(p, ctx.file, line_of(at), key);
  InputFile f{std::ifstream(p), p.string()};
  if (!f.in) {
    throw InputError(ctx.file, line_of(at), key, "cannot open '" + f.path + "'");
  }
  ctx.read(f.path);
  return f;
}

std::string read_type(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                      const std::vector<std::string>& known, const std::string& default_type) {
  std::string type = default_type;
  if (!n.IsDefined()) {
    // a missing key (yaml-cpp gives an invalid node): the default type, if there is one
  } else if (n.IsScalar()) {
    type = n.Scalar();
  } else if (n.IsMap() && n["type"]) {
    type = read_value<std::string>(n["type"], ctx, path + ".type");
  } else if (n.IsDefined() && !n.IsNull() && !n.IsMap()) {
    throw InputError(ctx.file, line_of(n), path, "expected a mapping with a 'type' key");
  }
  if (type.empty()) {
    throw InputError(ctx.file, line_of(n), path + ".type", "missing; one of the known types is required");
  }
  if (auto err = one_of(known)(type)) {
    throw InputError(ctx.file, line_of(n.IsMap() && n["type"] ? n["type"] : n), path + ".type", *err);
  }
  return type;
}

}  // namespace rocesim
