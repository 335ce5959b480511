#include "engine/session/engine_metrics.h"
#include <cstdio>
#include <unistd.h>

namespace hearth::engine {

namespace {
int64_t resident_bytes() {
    // statm's second field is the resident set in pages.
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    long long size = 0, resident = 0;
    const int read = std::fscanf(f, "%lld %lld", &size, &resident);
    std::fclose(f);
    return read == 2 ? resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE)) : 0;
}
} // namespace

EngineMetricsSnapshot EngineMetrics::snapshot() const {
    constexpr auto relaxed = std::memory_order_relaxed;
    EngineMetricsSnapshot s;
    s.generating = generating.load(relaxed);
    s.prefill_tokens_per_second = prefill_tokens_per_second.load(relaxed);
    s.decode_tokens_per_second = decode_tokens_per_second.load(relaxed);
    s.time_to_first_token_ms = time_to_first_token_ms.load(relaxed);
    s.tokens_reused = tokens_reused.load(relaxed);
    s.tokens_computed = tokens_computed.load(relaxed);
    s.tokens_generated = tokens_generated.load(relaxed);
    s.kv_tokens = kv_tokens.load(relaxed);
    s.kv_capacity = kv_capacity.load(relaxed);
    s.kv_bytes = kv_bytes.load(relaxed);
    s.model_bytes = model_bytes.load(relaxed);
    s.kv_sessions = kv_sessions.load(relaxed);
    s.tokens_shifted_out = tokens_shifted_out.load(relaxed);
    s.context_shifts = context_shifts.load(relaxed);
    s.states_restored = states_restored.load(relaxed);
    s.states_rejected = states_rejected.load(relaxed);
    s.speculative = speculative.load(relaxed);
    s.verify_passes = verify_passes.load(relaxed);
    s.drafted_tokens = drafted_tokens.load(relaxed);
    s.accepted_tokens = accepted_tokens.load(relaxed);
    s.verify_passes_total = verify_passes_total.load(relaxed);
    s.drafted_tokens_total = drafted_tokens_total.load(relaxed);
    s.accepted_tokens_total = accepted_tokens_total.load(relaxed);
    s.images = images.load(relaxed);
    s.image_positions = image_positions.load(relaxed);
    s.images_encoded = images_encoded.load(relaxed);
    s.image_encode_ms = image_encode_ms.load(relaxed);
    s.resident_bytes = resident_bytes();
    {
        const std::lock_guard lock(device_mutex_);
        s.device_ops = device_ops_;
        s.device_validation_errors = device_validation_errors_;
    }
    std::shared_ptr<const ExpertHits> hits;
    {
        const std::lock_guard lock(expert_hits_mutex_);
        hits = expert_hits_;
    }
    if (!hits) return s;
    s.expert_layers = hits->n_layer();
    s.expert_count = hits->n_expert();
    s.expert_hits.resize(static_cast<size_t>(s.expert_layers) * static_cast<size_t>(s.expert_count));
    for (int32_t layer = 0; layer < s.expert_layers; ++layer)
        for (int32_t e = 0; e < s.expert_count; ++e)
            s.expert_hits[static_cast<size_t>(layer) * s.expert_count + e] = hits->at(layer, e);
    return s;
}

void EngineMetrics::begin_reply() {
    constexpr auto relaxed = std::memory_order_relaxed;
    shifts_before_reply_ = context_shifts.load(relaxed);
    verify_passes_before_ = verify_passes_total.load(relaxed);
    drafted_before_ = drafted_tokens_total.load(relaxed);
    accepted_before_ = accepted_tokens_total.load(relaxed);
    // The reply has generated nothing yet: while it reads its prompt the count says so (the
    // rates, measured, stay the last reply's until this one's are).
    tokens_generated.store(0, relaxed);
    generating.store(true, relaxed);
}

void EngineMetrics::publish_reply(const TurnStats& reply, int32_t kv_tokens_now, int32_t kv_capacity_now) {
    constexpr auto relaxed = std::memory_order_relaxed;
    tokens_reused.store(reply.reused_tokens, relaxed);
    tokens_computed.store(reply.computed_tokens, relaxed);
    tokens_generated.store(reply.generated_tokens, relaxed);
    tokens_shifted_out.store(reply.shifted_out_tokens, relaxed);
    context_shifts.store(shifts_before_reply_ + reply.context_shifts, relaxed);
    kv_tokens.store(kv_tokens_now, relaxed);
    kv_capacity.store(kv_capacity_now, relaxed);
    speculative.store(reply.speculative, relaxed);
    verify_passes.store(reply.verify_passes, relaxed);
    drafted_tokens.store(reply.drafted_tokens, relaxed);
    accepted_tokens.store(reply.accepted_tokens, relaxed);
    verify_passes_total.store(verify_passes_before_ + reply.verify_passes, relaxed);
    drafted_tokens_total.store(drafted_before_ + reply.drafted_tokens, relaxed);
    accepted_tokens_total.store(accepted_before_ + reply.accepted_tokens, relaxed);
    images.store(reply.images, relaxed);
    image_positions.store(reply.image_positions, relaxed);
    images_encoded.store(reply.images_encoded, relaxed);
    image_encode_ms.store(reply.image_encode_seconds * 1000.0, relaxed);
    if (reply.prefill_seconds > 0)
        prefill_tokens_per_second.store(reply.prefill_tokens_per_second(), relaxed);
    if (reply.time_to_first_token > 0)
        time_to_first_token_ms.store(reply.time_to_first_token * 1000.0, relaxed);
    if (reply.decode_seconds > 0) decode_tokens_per_second.store(reply.decode_tokens_per_second(), relaxed);
}

void EngineMetrics::show_device_figures(std::vector<DeviceOpTiming> ops, uint64_t validation_errors) {
    const std::lock_guard lock(device_mutex_);
    device_ops_ = std::move(ops);
    device_validation_errors_ = validation_errors;
}

std::vector<DeviceOpTiming> EngineMetrics::device_ops() const {
    const std::lock_guard lock(device_mutex_);
    return device_ops_;
}

void EngineMetrics::show_expert_hits(std::shared_ptr<const ExpertHits> hits) {
    const std::lock_guard lock(expert_hits_mutex_);
    if (hits == expert_hits_) {
        ++expert_hits_shown_by_;
        return;
    }
    expert_hits_ = std::move(hits);
    expert_hits_shown_by_ = 1;
}

void EngineMetrics::stop_showing_expert_hits(const ExpertHits* hits) {
    const std::lock_guard lock(expert_hits_mutex_);
    if (hits != expert_hits_.get() || --expert_hits_shown_by_ > 0) return;
    expert_hits_.reset();
    expert_hits_shown_by_ = 0;
}

} // namespace hearth::engine
