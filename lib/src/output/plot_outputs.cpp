// output/plot_outputs.cpp — --plot's pictures staged and committed (plot_outputs.hpp).
#include "tensor_inspect/plot_outputs.hpp"

namespace tensor_inspect {

std::string plot_path_for(const std::string& pattern, const std::string& name) {
  std::string safe;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    safe += c == '/' || byte < 0x20 || byte == 0x7f ? '_' : c;
  }
  std::string out = pattern;
  for (std::size_t at = out.find("{name}"); at != std::string::npos; at = out.find("{name}", at + safe.size()))
    out.replace(at, 6, safe);
  return out;
}

PlotOutputs::PlotOutputs(TempFileHooks hooks) : files_(std::move(hooks)) {}

void PlotOutputs::protect(const std::optional<std::string>& input) {
  if (input) files_.protect(*input);
}

PlotFormat PlotOutputs::check(const std::string& path) const {
  const OutputTarget target = resolve_output(path);
  const PlotFormat format = plot_format_of(path, target.kind == OutputTarget::Kind::Stream);
  files_.check(path, format != PlotFormat::Svg);
  return format;
}

void PlotOutputs::write(const std::string& path, const std::string& what,
                        const std::function<void(PlotFormat, std::string&)>& draw) {
  const PlotFormat format = check(path);
  std::string bytes;
  draw(format, bytes);
  files_.write(path, bytes, plot_format_name(format), format != PlotFormat::Svg);
  to_stdout_ |= resolve_output(path).is_stdout;
  staged_lines_.push_back("wrote " + path + ": " + plot_format_name(format) + " " + what);
}

void PlotOutputs::commit() {
  files_.commit();
  for (std::string& line : staged_lines_) written_.push_back(std::move(line));
  staged_lines_.clear();
}

}  // namespace tensor_inspect
