#include "engine/model/memory_check.h"
#include "engine/error.h"
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hearth::engine {

MemoryNeed memory_need(const ModelInfo& info, int32_t n_ctx, kernels::TensorType key_type,
                       kernels::TensorType value_type) {
    MemoryNeed need;
    need.weight_bytes = info.file_bytes;
    need.n_ctx = n_ctx;
    need.kv_cache_bytes = info.kv_bytes_per_token_as(key_type, value_type) * n_ctx;
    return need;
}

std::optional<int64_t> parse_mem_available(std::string_view meminfo) {
    constexpr std::string_view key = "MemAvailable:";
    for (size_t start = 0; start < meminfo.size();) {
        size_t end = meminfo.find('\n', start);
        if (end == std::string_view::npos) end = meminfo.size();
        std::string_view line = meminfo.substr(start, end - start);
        start = end + 1;
        if (!line.starts_with(key)) continue;
        line.remove_prefix(key.size());
        while (!line.empty() && line.front() == ' ')
            line.remove_prefix(1);
        int64_t kib = 0;
        const auto [rest, error] = std::from_chars(line.data(), line.data() + line.size(), kib);
        if (error != std::errc() || kib < 0 || kib > (int64_t{1} << 50)) return std::nullopt;
        if (std::string_view(rest, static_cast<size_t>(line.data() + line.size() - rest)) != " kB")
            return std::nullopt;
        return kib * 1024;
    }
    return std::nullopt;
}

std::optional<int64_t> available_memory_bytes() {
    if (const char* forced = std::getenv("HEARTH_AVAILABLE_MEMORY"); forced && *forced) {
        int64_t bytes = 0;
        const char* end = forced + std::char_traits<char>::length(forced);
        const auto [rest, error] = std::from_chars(forced, end, bytes);
        if (error == std::errc() && rest == end && bytes >= 0) return bytes;
    }
    std::ifstream file("/proc/meminfo");
    if (!file) return std::nullopt;
    std::stringstream text;
    text << file.rdbuf();
    return parse_mem_available(text.str());
}

std::string format_memory(int64_t bytes) {
    constexpr double kMiB = 1024.0 * 1024.0;
    char text[32];
    if (bytes >= (int64_t{1} << 30))
        std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (kMiB * 1024.0));
    else
        std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / kMiB);
    return text;
}

void check_memory_fits(const std::string& path, const MemoryNeed& need, std::optional<int64_t> available) {
    if (!available || need.total() <= *available) return;
    std::string message = path + ": needs " + format_memory(need.total()) + " of memory (" +
                          format_memory(need.weight_bytes) + " of weights and " +
                          format_memory(need.kv_cache_bytes) + " of KV cache for " +
                          std::to_string(need.n_ctx) + " tokens of context), but only " +
                          format_memory(*available) + " is available";
    // When the weights alone fit, a shorter context or a quantized cache is the way out.
    if (need.weight_bytes <= *available) message += "; a shorter context or a quantized KV cache needs less";
    throw Error(message);
}

} // namespace hearth::engine
