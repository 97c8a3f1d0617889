// SPDX-License-Identifier: MIT
// Simulated scenes (cd_simulate.h): N boxes in Bullet's btDiscreteDynamicsWorld, stepped with a
// fixed time step on one thread, each recorded frame handed to the caller.
//
// Determinism: Bullet's discrete world on one thread is a pure function of what is added to it,
// in which order, and the steps asked of it (its solver's shuffling draws from a seed of its own,
// reset with each solver). Every draw here comes from one splitmix64 stream of the seed, bodies
// are added in index order, and every step is stepSimulation(dt, 0): one step of exactly dt, no
// interpolation. So the same parameters give the same poses, bit for bit, on the same build
// (compiler flags and Bullet's version are the build's; the cache key holds Bullet's version).
#include "cd_simulate.h"

#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

extern "C" const char *const cd_sim_kind_names[] = {"brownian", "free_fall", "gravity", "pile", nullptr};

namespace
{

const btScalar kDt = btScalar(1.0 / 60.0);
const btScalar kG = btScalar(9.81);
// The pile: the heap's slope (rise over run, 27°, below the friction angle atan 0.6 = 31°) and the
// boxes' largest tilt (rad). Steeper heaps or larger tilts slide: at slope 0.8 or tilt 0.25 a
// 10 000-box heap still avalanches after 10 s; at slope 0.6 one seed of three crept until 9 s;
// this one was asleep within 4 s for seeds 3, 7 and 42.
const double kSlope = 0.5, kTilt = 0.15;

struct Rng {
    std::uint64_t s;
    std::uint64_t next()
    {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
    double range(double a, double b) { return a + (b - a) * uniform(); }
};

// The world with its parts; destroyed in reverse order of creation.
struct World {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> walls, bodies;
    ~World()
    {
        for (auto &b : bodies) world.removeRigidBody(b.get());
        for (auto &b : walls) world.removeRigidBody(b.get());
    }
};

// A static slab with centre c and half-extents h.
void add_wall(World &w, btVector3 c, btVector3 h)
{
    w.shapes.emplace_back(new btBoxShape(h));
    btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, w.shapes.back().get());
    info.m_startWorldTransform.setOrigin(c);
    info.m_friction = btScalar(0.6);
    w.walls.emplace_back(new btRigidBody(info));
    w.world.addRigidBody(w.walls.back().get());
}

// Walls around [0, L]² × [0, H] of thickness t: floor, four sides, and a lid when closed.
void add_container(World &w, double L, double H, bool closed)
{
    const double t = std::max(1.0, L / 8), hl = L / 2 + t, hh = H / 2 + t;
    auto v = [](double x, double y, double z) { return btVector3(btScalar(x), btScalar(y), btScalar(z)); };
    add_wall(w, v(L / 2, L / 2, -t / 2), v(hl, hl, t / 2));
    if (closed) add_wall(w, v(L / 2, L / 2, H + t / 2), v(hl, hl, t / 2));
    add_wall(w, v(-t / 2, L / 2, H / 2), v(t / 2, hl, hh));
    add_wall(w, v(L + t / 2, L / 2, H / 2), v(t / 2, hl, hh));
    add_wall(w, v(L / 2, -t / 2, H / 2), v(hl, t / 2, hh));
    add_wall(w, v(L / 2, L + t / 2, H / 2), v(hl, t / 2, hh));
}

// Mean of e³ for e uniform in [a, a·r].
double mean_cube(double a, double r) { return r == 1.0 ? a * a * a : a * a * a * (r * r * r * r - 1) / (4 * (r - 1)); }

// Initial centres of the spread scenes: the first N cells, in a seeded order, of an m × m × m'
// lattice of spacing s over the box (every cell a cube of side s >= d, the largest diagonal, so no
// two boxes overlap in any rotation; at most 8N cells), each jittered inside its cell.
std::vector<btVector3> place(Rng &rng, std::uint32_t n, double L, double d, double *height)
{
    std::uint64_t m = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(L / d));
    // At least one cell: with no boxes (n = 0) the cap below is 0, and m divides (the lattice is
    // then one empty cell; for n >= 1 the cap is at least 2, so the max changes nothing).
    m = std::max<std::uint64_t>(1, std::min(m, static_cast<std::uint64_t>(std::ceil(std::cbrt(8.0 * n)))));
    const std::uint64_t cells_z = std::max(m, (n + m * m - 1) / (m * m));
    const double s = std::max(d, L / static_cast<double>(m));
    std::vector<std::uint64_t> cell(m * m * cells_z);
    for (std::uint64_t i = 0; i < cell.size(); ++i) cell[i] = i;
    for (std::uint64_t i = cell.size() - 1; i > 0; --i) std::swap(cell[i], cell[rng.next() % (i + 1)]);
    std::vector<btVector3> c(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint64_t k = cell[i], x = k % m, y = k / m % m, z = k / (m * m);
        const double j = (s - d) / 2;
        c[i] = btVector3(btScalar((x + 0.5) * s + rng.range(-j, j)), btScalar((y + 0.5) * s + rng.range(-j, j)),
                         btScalar((z + 0.5) * s + rng.range(-j, j)));
    }
    *height = static_cast<double>(cells_z) * s;
    return c;
}

// The pile's heap: a cone of slope kSlope (rise over run) on the floor, built of a lattice of
// spacing s (boxes tilted at most kTilt, so s a little above the largest edge keeps them apart:
// a box turned by θ about any axis spans at most e·(1 + √2 sin θ + 2(1 − cos θ)) along an axis).
// Column (x, y) at distance r from the centre holds ceil(kSlope·(R − r)/s) boxes; R is the
// smallest radius (bisection) whose cone holds N cells, and the N lowest cells are filled, layer
// by layer, the top layer in a seeded order. Centres relative to the cone's axis at (0, 0); *radius
// receives R, *height the top (both 0 for n = 0).
std::vector<btVector3> place_heap(Rng &rng, std::uint32_t n, double s, double *radius, double *height)
{
    if (n == 0) {  // no heap: no cells to choose from (cells[n - 1] below needs a box)
        *radius = *height = 0;
        return {};
    }
    auto column = [s](double R, double x, double y) {
        double r = std::sqrt(x * x + y * y);
        return r >= R ? 0.0 : std::ceil(kSlope * (R - r) / s);
    };
    // Cells (x, y) of the lattice, centred on the axis, out to radius R.
    auto count = [&](double R, std::vector<std::uint64_t> *cells) {
        const std::int64_t h = static_cast<std::int64_t>(R / s) + 1, w = 2 * h + 1;
        double total = 0;
        for (std::int64_t y = -h; y <= h; ++y)
            for (std::int64_t x = -h; x <= h; ++x) {
                double k = column(R, static_cast<double>(x) * s, static_cast<double>(y) * s);
                total += k;
                for (std::uint64_t z = 0; cells && z < k; ++z)
                    cells->push_back((z * w + static_cast<std::uint64_t>(y + h)) * w +
                                     static_cast<std::uint64_t>(x + h));
            }
        return total;
    };
    double lo = 0, hi = s * (1 + std::cbrt(3.0 * n / (M_PI * kSlope)));  // the cone of volume N·s³, and then some
    while (count(hi, nullptr) < n) hi *= 2;
    for (int it = 0; it < 60; ++it) (count((lo + hi) / 2, nullptr) >= n ? hi : lo) = (lo + hi) / 2;
    std::vector<std::uint64_t> cells;
    count(hi, &cells);
    std::sort(cells.begin(), cells.end());  // layer by layer
    const std::uint64_t h = static_cast<std::uint64_t>(hi / s) + 1, w = 2 * h + 1, top = cells[n - 1] / (w * w);
    std::size_t first = n, end = n;  // the top layer is cells[first, end)
    while (first > 0 && cells[first - 1] / (w * w) == top) --first;
    while (end < cells.size() && cells[end] / (w * w) == top) ++end;
    for (std::size_t i = end - 1; i > first; --i)  // which cells of the top layer
        std::swap(cells[i], cells[first + rng.next() % (i - first + 1)]);
    std::vector<btVector3> c(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint64_t k = cells[i], x = k % w, y = k / w % w, z = k / (w * w);
        c[i] = btVector3(btScalar((static_cast<double>(x) - static_cast<double>(h)) * s),
                         btScalar((static_cast<double>(y) - static_cast<double>(h)) * s), btScalar((z + 0.5) * s));
    }
    *radius = hi;
    *height = static_cast<double>(top + 1) * s;
    return c;
}

// Box i: edge e, a seeded rotation (by at most tilt rad when tilt > 0), mass = volume.
void add_box(World &w, Rng &rng, btVector3 c, double e, double tilt, bool sleeps)
{
    w.shapes.emplace_back(new btBoxShape(btVector3(btScalar(e / 2), btScalar(e / 2), btScalar(e / 2))));
    btCollisionShape *shape = w.shapes.back().get();
    btScalar mass = btScalar(e * e * e);
    btVector3 inertia(0, 0, 0);
    shape->calculateLocalInertia(mass, inertia);
    btVector3 axis(btScalar(rng.range(-1, 1)), btScalar(rng.range(-1, 1)), btScalar(rng.range(-1, 1)) + btScalar(2));
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
    info.m_startWorldTransform.setOrigin(c);
    const double angle = tilt > 0 ? rng.range(-tilt, tilt) : rng.range(0, 2 * M_PI);
    info.m_startWorldTransform.setRotation(btQuaternion(axis.normalized(), btScalar(angle)));
    info.m_friction = btScalar(0.6);
    w.bodies.emplace_back(new btRigidBody(info));
    btRigidBody *b = w.bodies.back().get();
    if (sleeps)  // damping lets a settling heap's last jitter die out, so its islands fall asleep
        b->setDamping(btScalar(0.3), btScalar(0.9)), b->setSleepingThresholds(btScalar(1.2), btScalar(1.5));
    else
        b->setActivationState(DISABLE_DEACTIVATION);
    w.world.addRigidBody(b);
}

// The forces of one step: random impulses (brownian) or the pull to the centre (gravity).
void push(World &w, Rng &rng, cd_sim_kind kind, const btVector3 &centre, double kick)
{
    for (auto &b : w.bodies) {
        btScalar m = btScalar(1) / b->getInvMass();
        if (kind == CD_SIM_BROWNIAN) {
            btVector3 v(btScalar(rng.range(-kick, kick)), btScalar(rng.range(-kick, kick)),
                        btScalar(rng.range(-kick, kick)));
            b->applyCentralImpulse(v * m);
        } else if (kind == CD_SIM_GRAVITY) {
            btVector3 to = centre - b->getWorldTransform().getOrigin();
            btScalar len = to.length();
            if (len > btScalar(1e-6)) b->applyCentralForce(to * (m * kG / len));
        }
    }
}

}  // namespace

extern "C" int cd_sim_bullet_version(void) { return BT_BULLET_VERSION; }

extern "C" int cd_sim_run(const cd_sim_params *p, float *half, cd_sim_frame_fn frame, void *ctx)
{
    Rng rng{p->seed ^ 0x51b0c0de5eedULL};
    const std::uint32_t n = p->objects;
    std::vector<double> edge(n);
    for (auto &e : edge) e = p->size * (p->size_ratio > 1 ? rng.range(1, p->size_ratio) : 1.0);
    for (std::uint32_t i = 0; i < n; ++i)
        half[3 * i] = half[3 * i + 1] = half[3 * i + 2] = static_cast<float>(edge[i] / 2);
    const double L = std::cbrt(n * mean_cube(p->size, p->size_ratio) / p->density);
    const double d = p->size * p->size_ratio * std::sqrt(3.0) * 1.02;
    const bool falls = p->kind == CD_SIM_FREE_FALL || p->kind == CD_SIM_PILE, pile = p->kind == CD_SIM_PILE;
    double height, side = std::max(L, d);
    std::vector<btVector3> c;
    if (pile) {  // the heap on the middle of a floor at least two cells wider than it on every side
        const double s =
            p->size * p->size_ratio * (1 + std::sqrt(2.0) * std::sin(kTilt) + 2 * (1 - std::cos(kTilt))) * 1.02;
        double radius;
        c = place_heap(rng, n, s, &radius, &height);
        side = std::max(side, 2 * radius + 4 * s);
        for (auto &ci : c) ci += btVector3(btScalar(side / 2), btScalar(side / 2), btScalar(0));
    } else {
        c = place(rng, n, side, d, &height);
    }
    auto w = std::make_unique<World>();
    w->world.setGravity(falls ? btVector3(0, 0, -kG) : btVector3(0, 0, 0));
    add_container(*w, side, std::max(height, side), !falls);
    for (std::uint32_t i = 0; i < n; ++i) add_box(*w, rng, c[i], edge[i], pile ? kTilt : 0, falls);
    const btVector3 centre(btScalar(side / 2), btScalar(side / 2), btScalar(std::max(height, side) / 2));
    std::vector<float> pose(7 * static_cast<std::size_t>(n));
    for (std::uint64_t f = 0; f < p->frames; ++f) {
        for (std::uint32_t s = 0; f > 0 && s < p->steps; ++s) {
            push(*w, rng, p->kind, centre, 2.0 * p->size);
            w->world.stepSimulation(kDt, 0);
        }
        for (std::uint32_t i = 0; i < n; ++i) {
            const btTransform &t = w->bodies[i]->getWorldTransform();
            btQuaternion q = t.getRotation();
            const btVector3 &o = t.getOrigin();
            float *r = &pose[7 * static_cast<std::size_t>(i)];
            r[0] = q.w(), r[1] = q.x(), r[2] = q.y(), r[3] = q.z(), r[4] = o.x(), r[5] = o.y(), r[6] = o.z();
        }
        if (int rc = frame(ctx, f, pose.data())) return rc;
    }
    return 0;
}
