#pragma once
// Live figures of what one engine is doing: a sink owned by whoever runs the engine
// (the app's inference worker, hearth-cli serve, a test) and passed to its SessionStore
// or ChatSession, so that two engines in one process never mix their numbers. Written
// with relaxed atomics by the thread that runs the engine and read as a snapshot by
// any thread (the GUI samples it a few times a second). A reply's figures are booked once,
// in its TurnStats, and published from there (publish_reply).
#include "engine/forward/device_forward.h"
#include "engine/forward/expert_hits.h"
#include "engine/session/turn_result.h"
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace hearth::engine {

struct EngineMetricsSnapshot {
    bool generating = false;
    double prefill_tokens_per_second = 0; // of the last prefill
    double decode_tokens_per_second = 0;  // running, of the current or last reply
    double time_to_first_token_ms = 0;    // of the last reply
    int64_t tokens_reused = 0;            // of the last reply's prompt
    int64_t tokens_computed = 0;          // of the last reply's prompt
    int64_t tokens_generated = 0;         // of the current or last reply
    int64_t kv_tokens = 0;                // in the active conversation's cache
    int64_t kv_capacity = 0;
    int64_t kv_bytes = 0;           // of every cache held in memory
    int64_t kv_sessions = 0;        // conversations whose caches are in memory
    int64_t tokens_shifted_out = 0; // of the last reply's conversation, out of the model's view
    int64_t context_shifts = 0;     // since start
    int64_t states_restored = 0;    // conversations resumed from a saved state, since start
    int64_t states_rejected = 0;    // saved states discarded (mismatch or damage), since start
    // Speculative decoding in the current or last reply: whether it ran, its verify passes, the
    // tokens drafted and accepted (TurnStats'); and the same counts summed since start.
    bool speculative = false;
    int64_t verify_passes = 0;
    int64_t drafted_tokens = 0;
    int64_t accepted_tokens = 0;
    int64_t verify_passes_total = 0;
    int64_t drafted_tokens_total = 0;
    int64_t accepted_tokens_total = 0;
    // Images in the last reply's prompt that its prefill evaluated (TurnStats'): how many, their
    // positions, how many were encoded (not found in the encoder's cache), and the encoding time.
    int64_t images = 0;
    int64_t image_positions = 0;
    int64_t images_encoded = 0;
    double image_encode_ms = 0;
    int64_t model_bytes = 0;
    int64_t resident_bytes = 0; // of the whole process (from /proc)
    // Mixture-of-experts models: how often each expert of each layer was chosen since this
    // engine's forward pass was set up, expert_hits[layer * expert_count + expert] (empty for
    // dense models, and while no forward pass is shown; engine/forward/expert_hits.h).
    int32_t expert_layers = 0;
    int32_t expert_count = 0;
    std::vector<int64_t> expert_hits;
    // GPU time per kind of operation, summed over every forward pass that ran on a GPU (empty
    // while none has), and the errors the Vulkan validation layer reported (0 when it is off).
    std::vector<DeviceOpTiming> device_ops;
    uint64_t device_validation_errors = 0;
};

class EngineMetrics {
public:
    EngineMetrics() = default;
    EngineMetrics(const EngineMetrics&) = delete; // the engine writes through a reference to it
    EngineMetrics& operator=(const EngineMetrics&) = delete;

    EngineMetricsSnapshot snapshot() const;

    // The expert counts the snapshot shows: those of the forward pass the engine's sessions run
    // on. Each SessionStore and ChatSession given this sink calls show_expert_hits with its
    // forward pass's counts (Inference::expert_hits; null for a dense model) when it is made,
    // and stop_showing_expert_hits with the same when it goes: the latest counts shown stay
    // until all that showed them are gone. Kept alive while shown, so any thread may snapshot.
    void show_expert_hits(std::shared_ptr<const ExpertHits> hits);
    void stop_showing_expert_hits(const ExpertHits* hits);

    // A reply's figures, from the thread that runs the engine: begin_reply as it starts (the
    // snapshot shows it generating until `generating` is cleared), then publish_reply with its
    // figures so far after each step (the prompt's prefill, each decoded token) and at its end.
    // A rate or a time is shown once measured; until then the last reply's stays. The context
    // shifts since start count this reply's too.
    void begin_reply();
    void publish_reply(const TurnStats& reply, int32_t kv_tokens, int32_t kv_capacity);

    // The GPU figures the snapshot shows, as whoever runs the engine sums them (the forward
    // passes' DeviceForward::total_timings, over every device it ran on).
    void show_device_figures(std::vector<DeviceOpTiming> ops, uint64_t validation_errors);
    // The GPU time per op the snapshot would show (without the snapshot's read of /proc).
    std::vector<DeviceOpTiming> device_ops() const;

    std::atomic<bool> generating{false};
    std::atomic<double> prefill_tokens_per_second{0};
    std::atomic<double> decode_tokens_per_second{0};
    std::atomic<double> time_to_first_token_ms{0};
    std::atomic<int64_t> tokens_reused{0}, tokens_computed{0}, tokens_generated{0};
    std::atomic<int64_t> kv_tokens{0}, kv_capacity{0}, kv_bytes{0}, model_bytes{0};
    std::atomic<int64_t> kv_sessions{0}, tokens_shifted_out{0}, context_shifts{0};
    std::atomic<int64_t> states_restored{0}, states_rejected{0};
    std::atomic<bool> speculative{false};
    std::atomic<int64_t> verify_passes{0}, drafted_tokens{0}, accepted_tokens{0};
    std::atomic<int64_t> verify_passes_total{0}, drafted_tokens_total{0}, accepted_tokens_total{0};
    std::atomic<int64_t> images{0}, image_positions{0}, images_encoded{0};
    std::atomic<double> image_encode_ms{0};

private:
    int64_t shifts_before_reply_ = 0; // context_shifts when the current reply began
    // The totals when the current reply began: its own counts are added to them as it goes.
    int64_t verify_passes_before_ = 0, drafted_before_ = 0, accepted_before_ = 0;
    mutable std::mutex expert_hits_mutex_; // taken only to swap or copy the pointer
    std::shared_ptr<const ExpertHits> expert_hits_;
    int expert_hits_shown_by_ = 0;    // the sessions and stores showing expert_hits_
    mutable std::mutex device_mutex_; // guards the two below
    std::vector<DeviceOpTiming> device_ops_;
    uint64_t device_validation_errors_ = 0;
};

} // namespace hearth::engine
