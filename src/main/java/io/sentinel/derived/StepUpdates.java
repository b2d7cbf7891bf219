package io.sentinel.derived;

import io.sentinel.derived.KindState.Update;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The updates of one step of the {@link DerivedLayer}, in the order they were made, each as of
 * input 0 (a point that reads it through another input gets a copy with its own input index). The
 * updates of one point are a chain: {@code firstUpdate[p]} and {@code lastUpdate[p]} hold the
 * position + 1 of its first and last (0: none this step), {@code nextUpdate} the position + 1 of
 * the next one of the same point. Plain int arrays, so that asking whether a point has updates
 * reads no object of its own.
 */
final class StepUpdates {
  private final List<Update> updates = new ArrayList<>();
  private final int[] firstUpdate;
  private final int[] lastUpdate;
  private int[] nextUpdate = new int[64];

  /** The points with updates this step, {@code touchedCount} of them. */
  private int[] touchedPoints = new int[64];

  private int touchedCount;

  StepUpdates(int points) {
    firstUpdate = new int[points];
    lastUpdate = new int[points];
  }

  void add(int point, Update u) {
    updates.add(u);
    int pos = updates.size(); // position + 1
    if (pos > nextUpdate.length) {
      nextUpdate = Arrays.copyOf(nextUpdate, pos * 2);
    }
    nextUpdate[pos - 1] = 0;
    if (firstUpdate[point] == 0) {
      if (touchedCount == touchedPoints.length) {
        touchedPoints = Arrays.copyOf(touchedPoints, touchedCount * 2);
      }
      touchedPoints[touchedCount++] = point;
      firstUpdate[point] = pos;
    } else {
      nextUpdate[lastUpdate[point] - 1] = pos;
    }
    lastUpdate[point] = pos;
  }

  /** How many points have updates this step. */
  int touchedCount() {
    return touchedCount;
  }

  /** The {@code k}-th point with updates this step. */
  int touched(int k) {
    return touchedPoints[k];
  }

  /** The updates of {@code inputs}, each with its input's index, into {@code into} (cleared). */
  void gather(int[] inputs, List<Update> into) {
    into.clear();
    for (int i = 0; i < inputs.length; i++) {
      for (int pos = firstUpdate[inputs[i]]; pos != 0; pos = nextUpdate[pos - 1]) {
        Update u = updates.get(pos - 1);
        into.add(
            i == 0
                ? u
                : new Update(i, u.value(), u.quality(), u.valueChanged(), u.observed(), u.at()));
      }
    }
  }

  /** The step is over: no point has updates. */
  void clear() {
    for (int k = 0; k < touchedCount; k++) {
      firstUpdate[touchedPoints[k]] = 0;
      lastUpdate[touchedPoints[k]] = 0;
    }
    touchedCount = 0;
    updates.clear();
  }
}
