#pragma once
// A test model from ../shared/testdata/models with its forward pass, shared by the model suites.
#include "engine/forward/inference.h"
#include "engine/model/model.h"
#include "tests/support/test_support.h"
#include <memory>
#include <string>

namespace hearth::test {

struct LoadedModel {
    std::shared_ptr<const engine::Model> model;
    std::unique_ptr<engine::Inference> inference;
};

// Two kernel threads; n_batch prompt tokens per forward pass.
inline LoadedModel load_model(const std::string& name, int32_t n_batch) {
    LoadedModel l;
    l.model = engine::Model::load(testdata("models/" + name + ".gguf"));
    l.inference = std::make_unique<engine::Inference>(l.model, engine::InferenceOptions{2, n_batch});
    return l;
}

} // namespace hearth::test
