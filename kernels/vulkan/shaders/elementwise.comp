#version 450
// Placeholder until the element-wise ops land.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer X { float x[]; };
layout(push_constant) uniform P { uint count; } p;
void main() {
    if (gl_GlobalInvocationID.x < p.count) x[gl_GlobalInvocationID.x] *= 1.0;
}
