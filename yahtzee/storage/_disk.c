/*
 * Appends to files, each waited for on the disk, made by threads of this
 * module's own that never take the Python interpreter's lock.
 *
 * Why: a browser table answers a person's move only once its save is on the
 * disk.  Python threads that wait for the disk take the interpreter's lock
 * again after every system call, and with a thousand games at once they
 * keep taking it from the event loop, whose answers then queue.  Here a
 * line to append is copied into a queue (``submit``), a thread of this
 * module opens the file, writes the line, waits for the disk
 * (``fdatasync`` when asked) and closes the file, all without the lock,
 * and the one byte written to a pipe tells the event loop that appends
 * are done; ``finished`` then gives each one's key and error number.
 *
 * A thread takes every line queued (up to ``BATCH``) and writes them all
 * before it waits for any: the first wait then commits the file system's
 * journal for the whole batch, and the others find little left to do.
 * Waited for one by one, each line cost a journal commit of its own: at a
 * thousand games, in an hour when the disk was slow, a quarter of the
 * server's processor time (docs/scaling.md).  Each line is still told
 * done only once its own file is on the disk.
 *
 * After ``fork`` the child has none of the parent's threads: its queues
 * start empty and ``start`` starts threads of its own.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct append_job {
    struct append_job *next;
    unsigned long long key;
    char *path;
    char *data;
    size_t size;
    int durable;
    int error;
} append_job;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static append_job *todo_first = NULL, *todo_last = NULL, *done = NULL;
static int wake_read = -1, wake_write = -1;
static int hooked = 0;

static void free_job(append_job *job) {
    free(job->path);
    free(job->data);
    free(job);
}

/* Open the job's file and write its line: the descriptor, or -1 with job->error set. */
static int write_line(append_job *job) {
    int fd;
    do {
        fd = open(job->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        job->error = errno;
        return -1;
    }
    ssize_t written;
    do {
        written = write(fd, job->data, job->size);
    } while (written < 0 && errno == EINTR);
    if (written < 0) {
        job->error = errno;
    } else if ((size_t)written != job->size) {
        job->error = EIO; /* part of a line: readers drop it, the caller writes the save whole */
    }
    return fd;
}

/* Wait for the job's line on the disk if asked, and close its file. */
static void finish_line(append_job *job, int fd) {
    if (!job->error && job->durable) {
        int synced;
        do {
            synced = fdatasync(fd);
        } while (synced != 0 && errno == EINTR);
        if (synced != 0) {
            job->error = errno;
        }
    }
    if (close(fd) != 0 && !job->error && errno != EINTR) {
        job->error = errno;
    }
}

#define BATCH 64

static void *append_thread(void *unused) {
    (void)unused;
    append_job *batch[BATCH];
    int fds[BATCH];
    for (;;) {
        pthread_mutex_lock(&lock);
        while (todo_first == NULL) {
            pthread_cond_wait(&work, &lock);
        }
        int count = 0;
        while (todo_first != NULL && count < BATCH) {
            batch[count++] = todo_first;
            todo_first = todo_first->next;
        }
        if (todo_first == NULL) {
            todo_last = NULL;
        }
        pthread_mutex_unlock(&lock);

        /* every line written before any is waited for (see the top of this file) */
        for (int i = 0; i < count; i++) {
            fds[i] = write_line(batch[i]);
        }
        for (int i = 0; i < count; i++) {
            if (fds[i] >= 0) {
                finish_line(batch[i], fds[i]);
            }
        }

        pthread_mutex_lock(&lock);
        int first = done == NULL;
        for (int i = 0; i < count; i++) {
            batch[i]->next = done;
            done = batch[i];
        }
        int wake = wake_write;
        pthread_mutex_unlock(&lock);
        if (first) { /* a byte already waiting in the pipe tells of this one too */
            char byte = 1;
            ssize_t ignored = write(wake, &byte, 1);
            (void)ignored; /* a full pipe has told already */
        }
    }
    return NULL;
}

/* In a child after fork: no thread of the parent's runs there. */
static void forget_after_fork(void) {
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&work, NULL);
    todo_first = todo_last = done = NULL; /* the parent's, left to it */
    if (wake_read >= 0) {
        close(wake_read);
        close(wake_write);
    }
    wake_read = wake_write = -1;
}

static int set_flags(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0
           || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ? -1 : 0;
}

static PyObject *start(PyObject *module, PyObject *args) {
    int threads;
    if (!PyArg_ParseTuple(args, "i", &threads)) {
        return NULL;
    }
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "at least one thread is needed");
        return NULL;
    }
    if (wake_read >= 0) {
        return PyLong_FromLong(wake_read);
    }
    if (!hooked) {
        if (pthread_atfork(NULL, NULL, forget_after_fork) != 0) {
            return PyErr_NoMemory();
        }
        hooked = 1;
    }
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) {
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (set_flags(pipe_ends[0]) != 0 || set_flags(pipe_ends[1]) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        close(pipe_ends[0]);
        close(pipe_ends[1]);
        return NULL;
    }
    for (int i = 0; i < threads; i++) {
        pthread_attr_t attributes;
        pthread_t thread;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attributes, 256 * 1024);
        int failed = pthread_create(&thread, &attributes, append_thread, NULL);
        pthread_attr_destroy(&attributes);
        if (failed) {
            if (i > 0) {
                break; /* fewer threads still do the work */
            }
            close(pipe_ends[0]);
            close(pipe_ends[1]);
            errno = failed;
            return PyErr_SetFromErrno(PyExc_OSError);
        }
    }
    pthread_mutex_lock(&lock);
    wake_read = pipe_ends[0];
    wake_write = pipe_ends[1];
    pthread_mutex_unlock(&lock);
    return PyLong_FromLong(wake_read);
}

static PyObject *submit(PyObject *module, PyObject *args) {
    unsigned long long key;
    const char *path, *data;
    Py_ssize_t path_size, data_size;
    int durable;
    if (!PyArg_ParseTuple(args, "Ky#y#p", &key, &path, &path_size, &data, &data_size,
                          &durable)) {
        return NULL;
    }
    if (wake_read < 0) {
        PyErr_SetString(PyExc_RuntimeError, "start() was not called in this process");
        return NULL;
    }
    if (memchr(path, 0, (size_t)path_size) != NULL) {
        PyErr_SetString(PyExc_ValueError, "a path holds no NUL byte");
        return NULL;
    }
    append_job *job = calloc(1, sizeof *job);
    if (job == NULL) {
        return PyErr_NoMemory();
    }
    job->path = malloc((size_t)path_size + 1);
    job->data = malloc(data_size > 0 ? (size_t)data_size : 1);
    if (job->path == NULL || job->data == NULL) {
        free_job(job);
        return PyErr_NoMemory();
    }
    memcpy(job->path, path, (size_t)path_size);
    job->path[path_size] = '\0';
    memcpy(job->data, data, (size_t)data_size);
    job->size = (size_t)data_size;
    job->key = key;
    job->durable = durable;
    pthread_mutex_lock(&lock);
    if (todo_last != NULL) {
        todo_last->next = job;
    } else {
        todo_first = job;
    }
    todo_last = job;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    Py_RETURN_NONE;
}

static PyObject *finished(PyObject *module, PyObject *unused) {
    (void)unused;
    char bytes[64];
    if (wake_read >= 0) {
        while (read(wake_read, bytes, sizeof bytes) > 0) {
        }
    }
    pthread_mutex_lock(&lock);
    append_job *job = done;
    done = NULL;
    pthread_mutex_unlock(&lock);
    PyObject *out = PyList_New(0);
    while (job != NULL) {
        append_job *next = job->next;
        PyObject *pair = out == NULL ? NULL : Py_BuildValue("(Ki)", job->key, job->error);
        if (pair == NULL || PyList_Append(out, pair) != 0) {
            Py_CLEAR(out);
        }
        Py_XDECREF(pair);
        free_job(job);
        job = next;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"start", start, METH_VARARGS,
     "start(threads) -> fd: start the append threads (once per process); the fd to watch."},
    {"submit", submit, METH_VARARGS,
     "submit(key, path, data, durable): queue an append of data to the existing file path."},
    {"finished", finished, METH_NOARGS,
     "finished() -> [(key, errno)]: the appends done since the last call (errno 0: done)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_disk",
    "Appends waited for on the disk by threads that never take the interpreter's lock.",
    -1, methods,
};

PyMODINIT_FUNC PyInit__disk(void) {
    return PyModule_Create(&module);
}
