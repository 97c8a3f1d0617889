// SPDX-License-Identifier: MIT
// Mesh files. Assimp parses and triangulates; we bake node transforms, join sub-meshes and weld by
// exact position ourselves, because Assimp's JoinIdenticalVertices also compares normals, which
// leaves an STL (one normal per face) as a triangle soup.
//
// Assimp is a third-party parser that aborts (failed ai_assert) or dies of a bus error on some
// malformed files, and cdlab must survive any bytes. So a file goes through three gates:
//   1. text formats (OFF, OBJ) are checked line by line first (text_check.c), so most mistakes
//      get a message with a line number and never reach Assimp;
//   2. Assimp runs in a child process that sends the triangles back through a pipe; its death by
//      a signal, a non-zero exit, a cut-short report or a stall past a deadline becomes an error
//      naming the file (with the first line Assimp printed, if any), and the child has no core
//      dump and, outside sanitizer builds, a cap on its address space;
//   3. what comes back is checked: finite coordinates, indices in range, at least one triangle
//      of non-zero area.
#include "cd_mesh.h"
#include "import.h"
#include "text_check.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define MESH_IO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MESH_IO_ASAN 1
#endif
#endif

// What the child sends first; then nverts (x, y, z) doubles and ntris index triples.
typedef struct import_header {
    uint32_t ok, nverts, ntris;
    char message[500];
} import_header;

// The child's side: Assimp, then the joined triangles down fd. Never returns.
static _Noreturn void import_child(const char *path, long long file_size, int fd)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    // A crash is a crash: not a handler inherited from the caller (a test framework's, say).
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) signal(fatal[i], SIG_DFL);
#ifndef MESH_IO_ASAN
    // A header can promise billions of elements; a cap turns Assimp's allocation into its own
    // error (std::bad_alloc) instead of a machine paging or the OOM killer picking a victim.
    // 64 bytes of parser state per byte of file is generous for every text format measured.
    rlim_t cap = ((rlim_t)8 << 30) + (rlim_t)file_size * 64;
    struct rlimit as = {cap, cap};
    setrlimit(RLIMIT_AS, &as);
#else
    (void)file_size;
#endif
    import_header h;
    memset(&h, 0, sizeof h);
    // No aiProcess_JoinIdenticalVertices: it joins vertices within a tolerance, which merged distinct
    // vertices of small meshes (an icosphere of radius 1e-6 read with 592 of its 642 vertices, and
    // measured so); cd_mesh_weld joins those at exactly the same position.
    unsigned flags = aiProcess_Triangulate | aiProcess_PreTransformVertices | aiProcess_SortByPType;
    const struct aiScene *sc = aiImportFile(path, flags);
    if (!sc) {
        snprintf(h.message, sizeof h.message, "%s", aiGetErrorString());
        _exit(cd_write_all(fd, &h, sizeof h) ? 1 : 0);
    }
    uint64_t nv = 0, nt = 0;
    for (unsigned i = 0; i < sc->mNumMeshes; ++i) {
        const struct aiMesh *am = sc->mMeshes[i];
        for (unsigned f = 0; f < am->mNumFaces; ++f) {
            const struct aiFace *af = &am->mFaces[f];
            if (af->mNumIndices != 3) continue;  // points and lines: no surface to collide
            for (int k = 0; k < 3; ++k)
                if (af->mIndices[k] >= am->mNumVertices) {
                    snprintf(h.message, sizeof h.message, "Assimp returned face %u of mesh %u with vertex %u of %u", f,
                             i, af->mIndices[k], am->mNumVertices);
                    _exit(cd_write_all(fd, &h, sizeof h) ? 1 : 0);
                }
            ++nt;
        }
        nv += am->mNumVertices;
    }
    if (nt == 0 || nv > UINT32_MAX || nt > UINT32_MAX) {
        snprintf(h.message, sizeof h.message,
                 "expected between 1 and 2^32-1 triangles and vertices, found %llu triangles", (unsigned long long)nt);
        _exit(cd_write_all(fd, &h, sizeof h) ? 1 : 0);
    }
    h.ok = 1, h.nverts = (uint32_t)nv, h.ntris = (uint32_t)nt;
    int bad = cd_write_all(fd, &h, sizeof h);
    enum { CHUNK = 4096 };
    double xyz[CHUNK][3];
    uint32_t tri[CHUNK][3];
    for (unsigned i = 0; i < sc->mNumMeshes && !bad; ++i) {
        const struct aiMesh *am = sc->mMeshes[i];
        for (unsigned v0 = 0; v0 < am->mNumVertices && !bad; v0 += CHUNK) {
            unsigned n = am->mNumVertices - v0 < CHUNK ? am->mNumVertices - v0 : CHUNK;
            for (unsigned v = 0; v < n; ++v) {
                struct aiVector3D p = am->mVertices[v0 + v];
                xyz[v][0] = p.x, xyz[v][1] = p.y, xyz[v][2] = p.z;
            }
            bad = cd_write_all(fd, xyz, sizeof xyz[0] * n);
        }
    }
    uint32_t vbase = 0, n = 0;
    for (unsigned i = 0; i < sc->mNumMeshes && !bad; ++i) {
        const struct aiMesh *am = sc->mMeshes[i];
        for (unsigned f = 0; f < am->mNumFaces && !bad; ++f) {
            const struct aiFace *af = &am->mFaces[f];
            if (af->mNumIndices != 3) continue;
            for (int k = 0; k < 3; ++k) tri[n][k] = vbase + af->mIndices[k];
            if (++n == CHUNK) bad = cd_write_all(fd, tri, sizeof tri), n = 0;
        }
        vbase += am->mNumVertices;
    }
    if (!bad && n) bad = cd_write_all(fd, tri, sizeof tri[0] * n);
    _exit(bad ? 1 : 0);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Seconds the child may take: CDLAB_MESH_READ_TIMEOUT where set (a positive finite number of
// seconds), or 60 s plus 2 s per MiB of file; 0 with err filled in when the variable is set to
// anything else (a typo must not silently give the default).
static double read_deadline(const char *path, long long file_size, char *err, size_t err_len)
{
    const char *env = getenv("CDLAB_MESH_READ_TIMEOUT");
    if (!env) return 60.0 + 2.0 * (double)file_size / (1 << 20);
    char *end;
    errno = 0;
    double t = strtod(env, &end);
    if (end != env && *end == '\0' && errno == 0 && isfinite(t) && t > 0.0) return t;
    snprintf(err, err_len, "%s: CDLAB_MESH_READ_TIMEOUT='%s': expected a positive number of seconds", path, env);
    return 0.0;
}

// The first non-empty line of what the child printed, as ": line" (or "").
static void first_line(const char *text, size_t n, char *out, size_t out_len)
{
    out[0] = '\0';
    size_t i = 0;
    while (i < n && (text[i] == '\n' || text[i] == '\r' || text[i] == ' ')) ++i;
    size_t j = i;
    while (j < n && text[j] != '\n' && text[j] != '\r') ++j;
    if (j > i) snprintf(out, out_len, ": %.*s", (int)(j - i < 300 ? j - i : 300), text + i);
}

int mesh_import_isolated(const char *path, long long file_size, cd_mesh *m, char *err, size_t err_len)
{
    memset(m, 0, sizeof *m);
    const double limit = read_deadline(path, file_size, err, err_len);
    if (limit <= 0.0) return -1;
    int data[2], text[2];
    if (pipe(data)) {
        snprintf(err, err_len, "%s: cannot start the mesh reader: pipe: %s", path, strerror(errno));
        return -1;
    }
    if (pipe(text)) {
        snprintf(err, err_len, "%s: cannot start the mesh reader: pipe: %s", path, strerror(errno));
        close(data[0]), close(data[1]);
        return -1;
    }
    fflush(NULL);  // nothing buffered is written twice
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_len, "%s: cannot start the mesh reader: fork: %s", path, strerror(errno));
        close(data[0]), close(data[1]), close(text[0]), close(text[1]);
        return -1;
    }
    if (pid == 0) {
        close(data[0]), close(text[0]);
        dup2(text[1], STDERR_FILENO);
        dup2(text[1], STDOUT_FILENO);
        close(text[1]);
        import_child(path, file_size, data[1]);
    }
    close(data[1]), close(text[1]);

    import_header h;
    memset(&h, 0, sizeof h);
    char said[512];
    size_t said_n = 0;
    // The report arrives in three parts: header, vertices, triangles; want/got track the current.
    char *dst = (char *)&h;
    size_t want = sizeof h, got = 0;
    int part = 0, data_open = 1, text_open = 1, timed_out = 0;
    double deadline = now_s() + limit;
    while (data_open || text_open) {
        struct pollfd fds[2] = {{data_open ? data[0] : -1, POLLIN, 0}, {text_open ? text[0] : -1, POLLIN, 0}};
        double left = deadline - now_s();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        int rc = poll(fds, 2, (int)(left * 1000) + 1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) break;
        if (fds[1].revents) {
            char buf[4096];
            ssize_t k = read(text[0], buf, sizeof buf);
            if (k <= 0 && !(k < 0 && errno == EINTR)) text_open = 0;
            for (ssize_t i = 0; i < k && said_n < sizeof said; ++i) said[said_n++] = buf[i];
        }
        if (fds[0].revents) {
            if (part == 3) {  // everything arrived: anything more is a broken report
                char c;
                ssize_t k = read(data[0], &c, 1);
                if (k == 0 || (k < 0 && errno != EINTR)) data_open = 0;
                if (k > 0) part = 4;
                continue;
            }
            ssize_t k = read(data[0], dst + got, want - got);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) {
                data_open = 0;
                continue;
            }
            got += (size_t)k;
            while (got == want && part < 3) {
                got = 0;
                if (part == 0) {
                    if (!h.ok) {
                        part = 3, want = 0;
                        break;
                    }
                    cd_mesh_alloc(m, h.nverts, h.ntris);
                    part = 1, dst = (char *)m->verts, want = sizeof *m->verts * h.nverts;
                } else if (part == 1) {
                    part = 2, dst = (char *)m->tris, want = sizeof *m->tris * h.ntris;
                } else {
                    part = 3, want = 0;
                }
            }
        }
    }
    if (timed_out) kill(pid, SIGKILL);
    close(data[0]), close(text[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char line[320];
    first_line(said, said_n, line, sizeof line);
    int ok = 0;
    if (timed_out)
        snprintf(err, err_len,
                 "%s: the mesh reader (Assimp) did not finish within %.0f s and was stopped "
                 "(CDLAB_MESH_READ_TIMEOUT sets the limit)",
                 path, limit);
    else if (WIFSIGNALED(status))
        snprintf(err, err_len, "%s: the mesh reader (Assimp) crashed on this file: signal %d (%s)%s", path,
                 WTERMSIG(status), strsignal(WTERMSIG(status)), line);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(err, err_len, "%s: the mesh reader (Assimp) failed on this file (exit status %d)%s", path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, line);
    else if (part < 3 || part == 4)
        snprintf(err, err_len, "%s: the mesh reader's report was cut short", path);
    else if (!h.ok)
        h.message[sizeof h.message - 1] = '\0', snprintf(err, err_len, "%s: %s", path, h.message);
    else
        ok = 1;
    if (!ok) cd_mesh_free(m);
    return ok ? 0 : -1;
}

int mesh_check_imported(const char *path, const cd_mesh *m, char *err, size_t err_len)
{
    for (uint32_t v = 0; v < m->nverts; ++v) {
        cd_vec3 p = m->verts[v];
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
            snprintf(err, err_len, "%s: vertex %u is not finite (%g, %g, %g)", path, v, p.x, p.y, p.z);
            return -1;
        }
    }
    int area = 0;
    for (uint32_t t = 0; t < m->ntris; ++t) {
        for (int k = 0; k < 3; ++k)
            if (m->tris[t][k] >= m->nverts) {
                snprintf(err, err_len, "%s: triangle %u names vertex %u of %u", path, t, m->tris[t][k], m->nverts);
                return -1;
            }
        if (!area) {
            cd_vec3 a = m->verts[m->tris[t][0]], b = m->verts[m->tris[t][1]], c = m->verts[m->tris[t][2]];
            cd_vec3 n = cd_v3_cross(cd_v3_sub(b, a), cd_v3_sub(c, a));
            area = n.x != 0.0 || n.y != 0.0 || n.z != 0.0;
        }
    }
    if (!area) {
        snprintf(err, err_len, "%s: all %u triangles have zero area: expected at least one proper triangle", path,
                 m->ntris);
        return -1;
    }
    return 0;
}

// The whole file in memory (text formats are checked from it), within CD_FILE_MAX_BYTES; a
// regular file, since the importer reads it again by name. NULL with err set.
static char *slurp(const char *path, off_t *size, char *err, size_t err_len)
{
    char *data, why[256];
    size_t n;
    if (cd_file_load(path, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &data, &n, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", path, why);
        return NULL;
    }
    if (n == 0) {
        snprintf(err, err_len, "%s: empty file: expected a mesh", path);
        cd_free(data);
        return NULL;
    }
    *size = (off_t)n;
    return data;
}

int cd_mesh_read(const char *path, cd_mesh *m, char *err, size_t err_len)
{
    memset(m, 0, sizeof *m);
    off_t size = 0;
    char *data = slurp(path, &size, err, err_len);
    if (!data) return -1;
    mesh_text_format fmt = mesh_text_format_of(path, data, (size_t)size);
    int bad = mesh_text_check(fmt, path, data, (size_t)size, err, err_len);
    cd_free(data);
    if (bad || mesh_import_isolated(path, (long long)size, m, err, err_len)) return -1;
    if (mesh_check_imported(path, m, err, err_len)) {
        cd_mesh_free(m);
        return -1;
    }
    cd_mesh_weld(m);
    return 0;
}
